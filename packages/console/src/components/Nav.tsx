/** The main navigation; link names are part of the console's contract (issue #19, Accessible). */
import { Link, useLocation } from "../router.tsx";

export const NAV_ITEMS: { label: string; path: string }[] = [
	{ label: "Overview", path: "" },
	{ label: "Messages", path: "messages" },
	{ label: "Partners", path: "partners" },
	{ label: "Certificates", path: "certificates" },
	{ label: "Webhooks", path: "webhooks" },
	{ label: "API keys", path: "api-keys" },
	{ label: "EPCIS", path: "epcis" },
];

export function Nav() {
	const { path } = useLocation();
	const section = path.split("/")[0] ?? "";
	return (
		<nav class="sidenav" aria-label="Main">
			<ul>
				{NAV_ITEMS.map((item) => (
					<li key={item.path}>
						<Link to={item.path} aria-current={section === item.path ? "page" : undefined}>
							{item.label}
						</Link>
					</li>
				))}
			</ul>
		</nav>
	);
}
