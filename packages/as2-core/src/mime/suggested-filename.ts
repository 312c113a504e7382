import { withoutControls } from "./decode-header-text.ts";

/**
 * A file name a sender suggests (Content-Disposition `filename`, Content-Type `name`), fit to
 * store and to show: only its last path segment, since a receiver must not follow the
 * sender's directory path (RFC 2183 §2.3, §5: "../../etc/passwd", "C:\\inbox\\po.x12"), and
 * no control characters (a NUL no database takes; CR/LF that would split a header when the
 * name is sent on), as in a Subject (decode-header-text.ts). Undefined when nothing is left.
 *
 * @example
 * suggestedFilename("..\\outbox/order\u0000 42.x12"); // "order\ufffd 42.x12"
 */
export function suggestedFilename(raw: string | undefined): string | undefined {
	if (raw === undefined) return undefined;
	const lastSegment = raw.slice(Math.max(raw.lastIndexOf("/"), raw.lastIndexOf("\\")) + 1);
	const name = withoutControls(lastSegment).trim();
	return name === "" || name === "." || name === ".." ? undefined : name;
}
