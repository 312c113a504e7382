/**
 * A screen that throws while rendering (an answer of an unexpected shape) shows what failed
 * instead of blanking the whole console; navigation keeps working.
 */
import type { ComponentChildren } from "preact";
import { useErrorBoundary } from "preact/hooks";

export function ScreenErrorBoundary({ children }: { children: ComponentChildren }) {
	const [error, reset] = useErrorBoundary();
	if (error) {
		return (
			<section class="page">
				<h1>This screen could not be shown</h1>
				<p class="error-note" role="alert">
					{error instanceof Error ? error.message : String(error)}
				</p>
				<p>
					<button type="button" class="button" onClick={reset}>
						Try again
					</button>
				</p>
			</section>
		);
	}
	return <>{children}</>;
}
