/** The signed-in frame: header (brand, tenant switcher, theme, sign out), navigation, main. */
import type { ComponentChildren } from "preact";
import { useAuth } from "../auth-state.tsx";
import { Brand } from "./Brand.tsx";
import { Nav } from "./Nav.tsx";
import { TenantSwitcher } from "./TenantSwitcher.tsx";
import { ThemeToggle } from "./ThemeToggle.tsx";

export function Layout({ children }: { children: ComponentChildren }) {
	const auth = useAuth();
	return (
		<div class="shell">
			<a class="skip-link" href="#main">
				Skip to content
			</a>
			<header class="topbar">
				<Brand />
				<div class="topbar-tools">
					<TenantSwitcher />
					<ThemeToggle />
					<span class="user">{auth.me.user?.email}</span>
					<button type="button" class="button ghost" onClick={() => auth.signOut()}>
						Sign out
					</button>
				</div>
			</header>
			<Nav />
			<main id="main" class="main" tabIndex={-1}>
				{children}
			</main>
		</div>
	);
}
