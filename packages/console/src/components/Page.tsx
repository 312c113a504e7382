/** A screen's frame: its one `h1`, an optional lead line and actions on the right. */
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

export function Page(props: {
	title: string;
	lead?: ComponentChildren;
	actions?: ComponentChildren;
	children?: ComponentChildren;
}) {
	useEffect(() => {
		document.title = `${props.title} · as2kit console`;
	}, [props.title]);
	return (
		<section class="page">
			<div class="page-head">
				<div>
					<h1>{props.title}</h1>
					{props.lead ? <p class="lead">{props.lead}</p> : null}
				</div>
				{props.actions ? <div class="page-actions">{props.actions}</div> : null}
			</div>
			{props.children}
		</section>
	);
}
