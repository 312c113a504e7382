/** The signed-out frame: a centred card with the product name and the screen's one h1. */
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { Brand } from "../../components/Brand.tsx";

export function AuthFrame({ title, children }: { title: string; children: ComponentChildren }) {
	useEffect(() => {
		document.title = `${title} · as2kit console`;
	}, [title]);
	return (
		<main class="auth-page">
			<div class="auth-card">
				<Brand as="p" />
				<h1>{title}</h1>
				{children}
			</div>
		</main>
	);
}
