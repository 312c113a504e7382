import { As2Error } from "../errors/index.ts";
import { checkBoundary, MAX_PADDING, type ReadMultipartOptions } from "./multipart.ts";

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * The parts of a multipart body held in memory (RFC 2046 §5.1), as views of `body`: in one
 * step, exactly the `raw` bytes {@link readMultipart} streams, under the same rules and
 * errors. A delimiter is `--boundary` at the start of the body or after LF (the CR before
 * the LF belongs to it), then transport padding and CRLF or LF, or `--` for the close
 * delimiter; `--boundary` followed by anything else is part data. Preamble and epilogue
 * are dropped.
 *
 * @example
 * const [content, signature] = splitMultipart(body, contentType.params.boundary!);
 */
export function splitMultipart(body: Uint8Array, boundary: string, opts: ReadMultipartOptions = {}): Uint8Array[] {
	checkBoundary(boundary);
	const maxParts = opts.maxParts ?? 1000;
	const maxPreambleBytes = opts.maxPreambleBytes ?? 1 << 20;
	const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	const needle = Buffer.from(`\n--${boundary}`, "latin1");

	// The body may open with the delimiter itself: as if it followed a line end.
	let found: Delimiter | undefined = bytes.subarray(0, needle.byteLength - 1).equals(needle.subarray(1))
		? delimiterAt(bytes, -1, needle.byteLength)
		: undefined;
	found ??= nextDelimiter(bytes, needle, 0);
	if (!found)
		throw new As2Error("MALFORMED_MIME", `multipart body does not contain the boundary ${JSON.stringify(boundary)}`);
	if (found.dataEnd > maxPreambleBytes + 1) {
		throw new As2Error("MALFORMED_MIME", `no multipart delimiter within the first ${maxPreambleBytes} bytes`);
	}
	// RFC 2046 §5.1.1: a multipart body has at least one body part.
	if (found.kind === "close") throw new As2Error("MALFORMED_MIME", "multipart body has no parts");
	const parts: Uint8Array[] = [];
	while (found.kind === "delimiter") {
		if (parts.length >= maxParts)
			throw new As2Error("MALFORMED_MIME", `multipart body has more than ${maxParts} parts`);
		const start = found.end;
		found = nextDelimiter(bytes, needle, start);
		if (!found) throw new As2Error("MALFORMED_MIME", `multipart body ends without the close delimiter --${boundary}--`);
		parts.push(body.subarray(start, found.dataEnd));
	}
	return parts;
}

interface Delimiter {
	kind: "delimiter" | "close";
	/** End of the data before it (its CRLF or LF excluded). */
	dataEnd: number;
	/** Just past its line end (or past the `--` of the close delimiter). */
	end: number;
}

function nextDelimiter(bytes: Buffer, needle: Buffer, from: number): Delimiter | undefined {
	for (let at = bytes.indexOf(needle, from); at >= 0; at = bytes.indexOf(needle, at + needle.byteLength)) {
		const found = delimiterAt(bytes, at, needle.byteLength);
		if (found) return found;
	}
	return undefined;
}

/**
 * The delimiter whose `LF--boundary` starts at `at` (-1: the virtual line end before the body),
 * or undefined when what follows makes it part data (RFC 2046 §5.1.1).
 */
function delimiterAt(bytes: Buffer, at: number, needleLength: number): Delimiter | undefined {
	const dataEnd = at > 0 && bytes[at - 1] === CR ? at - 1 : Math.max(at, 0);
	const tail = at + needleLength;
	if (bytes[tail] === DASH) return bytes[tail + 1] === DASH ? { kind: "close", dataEnd, end: tail + 2 } : undefined;
	// Transport padding, then the line end; as the streaming reader, look at most this far.
	const window = Math.min(bytes.byteLength, tail + MAX_PADDING + 2);
	let k = tail;
	while (k < window && (bytes[k] === SPACE || bytes[k] === TAB)) k++;
	if (k < window && bytes[k] === LF) return { kind: "delimiter", dataEnd, end: k + 1 };
	if (k + 1 < window && bytes[k] === CR && bytes[k + 1] === LF) return { kind: "delimiter", dataEnd, end: k + 2 };
	const undecided = k === window || (k === window - 1 && bytes[k] === CR);
	if (undecided && k - tail > MAX_PADDING) {
		throw new As2Error("MALFORMED_MIME", `multipart delimiter line padded with over ${MAX_PADDING} bytes`);
	}
	return undefined;
}
