/**
 * A failure a known partner quirk explains (issue #17, Hints): the partner setting to change,
 * the compatibility profile that carries it, and why.
 */
import { Link } from "../../router.tsx";
import type { ErrorHint } from "../../types.ts";

export function ErrorHintBox({ hint, partnerId }: { hint: ErrorHint; partnerId: string }) {
	return (
		<section class="hint-box" aria-label="Compatibility hint">
			<p>
				<strong>Hint:</strong> set <code>{hint.setting}</code> to <code>{String(hint.value)}</code> on{" "}
				<Link to={`partners/${partnerId}`}>the partner</Link>
				{hint.profile ? (
					<>
						{" "}
						(or apply the compatibility profile <code>{hint.profile}</code>)
					</>
				) : null}
				, then retry.
			</p>
			<p>{hint.why}</p>
		</section>
	);
}
