/** An overview card: a titled list of what needs attention, what to say when nothing does, a link to all. */
import type { ComponentChildren } from "preact";

export function ListCard<T>(props: {
	title: string;
	/** Said when the list is loaded and empty. */
	empty: string;
	items: T[] | undefined;
	itemKey: (item: T) => string;
	render: (item: T) => ComponentChildren;
	footer?: ComponentChildren;
}) {
	const id = props.title.toLowerCase().replaceAll(/\W+/g, "-");
	return (
		<section class="card" aria-labelledby={id}>
			<h2 id={id}>{props.title}</h2>
			{props.items && props.items.length === 0 ? <p class="muted">{props.empty}</p> : null}
			<ul class="plain-list">
				{props.items?.map((item) => (
					<li key={props.itemKey(item)}>{props.render(item)}</li>
				))}
			</ul>
			{props.footer}
		</section>
	);
}
