/** The product mark and name; `as` lets the signed-out card use a paragraph. */
export function Brand({ as: Tag = "span" }: { as?: "span" | "p" }) {
	return (
		<Tag class="brand">
			<span class="brand-mark" aria-hidden="true">
				AS2
			</span>
			as2kit
		</Tag>
	);
}
