import type { ByteReader, Chunks } from "../bytes/index.ts";
import { concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import { type BerHeader, decodeHeader, MAX_BER_DEPTH as MAX_DEPTH, MAX_HEADER_LENGTH } from "./ber-header.ts";
import { contextTag, TAG } from "./der.ts";

const malformed = (message: string) => new As2Error("MALFORMED_CMS", message);
const truncated = () => malformed("truncated ASN.1 data");

/**
 * A streaming BER reader (X.690 §8) over a {@link ByteReader}: it walks headers, enters and
 * leaves constructed elements (definite or indefinite length), buffers only the small
 * elements a caller asks for (each under a cap) and streams the content of OCTET STRINGs,
 * primitive or constructed, as `openssl cms -stream` and AS2 products send them.
 *
 * It keeps a stack of the constructed elements entered so a child that claims to run past
 * its parent is rejected at once.
 *
 * @example
 * const ber = new BerReader(new ByteReader(chunks));
 * ber.enter(await ber.expect(TAG.SEQUENCE, "ContentInfo"));
 * const oid = await ber.readElement(256, "contentType");
 */
export class BerReader {
	readonly input: ByteReader;
	/** End positions of the entered elements; `undefined` for indefinite lengths. */
	readonly #frames: Array<number | undefined> = [];

	constructor(input: ByteReader) {
		this.input = input;
	}

	get position(): number {
		return this.input.position;
	}

	/** Number of constructed elements currently entered. */
	get depth(): number {
		return this.#frames.length;
	}

	/** The next header without consuming it; `undefined` at the end of the input. */
	async peekHeader(): Promise<BerHeader | undefined> {
		const bytes = await this.input.peek(MAX_HEADER_LENGTH);
		if (bytes.byteLength === 0) return undefined;
		const header = decodeHeader(bytes);
		if (!header) throw truncated();
		return header;
	}

	/** Consumes and returns the next header. */
	async readHeader(): Promise<BerHeader> {
		const header = await this.peekHeader();
		if (!header) throw truncated();
		this.#checkFits(header);
		await this.input.read(header.headerLength, truncated);
		return header;
	}

	/** Reads a header and checks its identifier octet. */
	async expect(tag: number, what: string): Promise<BerHeader> {
		const header = await this.readHeader();
		if (header.tag !== tag) {
			throw malformed(`expected ${what} (tag 0x${tag.toString(16)}), found tag 0x${header.tag.toString(16)}`);
		}
		return header;
	}

	/** Reads `[n]` constructed (an EXPLICIT tag) and enters it. */
	async enterExplicit(n: number, what: string): Promise<BerHeader> {
		const header = await this.expect(contextTag(n, true), what);
		this.enter(header);
		return header;
	}

	/** Steps into a constructed element whose header was just read. */
	enter(header: BerHeader): void {
		if (!header.constructed) throw malformed("expected a constructed element");
		if (this.#frames.length >= MAX_DEPTH) throw malformed("ASN.1 nesting too deep");
		this.#frames.push(header.length === undefined ? undefined : this.position + header.length);
	}

	/** Whether the innermost entered element has more children. */
	async hasMore(): Promise<boolean> {
		if (this.#frames.length === 0) return !(await this.input.atEnd());
		const end = this.#frames[this.#frames.length - 1];
		if (end !== undefined) return this.position < end;
		const eoc = await this.input.peek(2);
		if (eoc.byteLength < 2) throw truncated();
		return !(eoc[0] === 0 && eoc[1] === 0);
	}

	/**
	 * Leaves the innermost element, skipping children not read (extensions and optional
	 * fields we ignore, e.g. unprotectedAttrs) and its end-of-contents octets.
	 */
	async leave(): Promise<void> {
		if (this.#frames.length === 0) throw new Error("BerReader.leave() without enter()");
		const end = this.#frames[this.#frames.length - 1];
		if (end !== undefined) {
			if (this.position > end) throw malformed("element runs past its container");
			await this.skipBytes(end - this.position);
		} else {
			while (await this.hasMore()) await this.skipElement();
			await this.input.read(2, truncated);
		}
		this.#frames.pop();
	}

	/** Skips the next element, streaming (nothing is buffered). */
	async skipElement(): Promise<void> {
		await this.skipContent(await this.readHeader());
	}

	/** Skips the content of an element whose header was just read. */
	async skipContent(header: BerHeader): Promise<void> {
		if (header.length !== undefined) {
			await this.skipBytes(header.length);
			return;
		}
		this.enter(header);
		await this.leave();
	}

	async skipBytes(n: number): Promise<void> {
		for await (const _ of this.input.take(n, truncated)) {
			// discarded
		}
	}

	/**
	 * The next whole element, header included, exactly as received (indefinite lengths
	 * kept), buffering at most `maxBytes`: MESSAGE_TOO_LARGE beyond.
	 */
	async readElement(maxBytes: number, what: string): Promise<Uint8Array> {
		const parts: Uint8Array[] = [];
		let total = 0;
		const grab = async (n: number) => {
			if (total + n > maxBytes) {
				throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than the ${maxBytes} bytes allowed`);
			}
			parts.push(await this.input.read(n, truncated));
			total += n;
		};
		const one = async (depth: number): Promise<void> => {
			if (depth > MAX_DEPTH) throw malformed("ASN.1 nesting too deep");
			const header = await this.peekHeader();
			if (!header) throw truncated();
			if (depth === 0) this.#checkFits(header);
			await grab(header.headerLength);
			if (header.length !== undefined) {
				await grab(header.length);
				return;
			}
			for (;;) {
				const eoc = await this.input.peek(2);
				if (eoc.byteLength < 2) throw truncated();
				if (eoc[0] === 0 && eoc[1] === 0) {
					await grab(2);
					return;
				}
				await one(depth + 1);
			}
		};
		await one(0);
		this.#checkInside();
		return concatBytes(parts);
	}

	/**
	 * Content octets of a primitive element whose header was just read, at most `maxBytes`.
	 */
	async readPrimitive(header: BerHeader, maxBytes: number, what: string): Promise<Uint8Array> {
		if (header.constructed || header.length === undefined) throw malformed(`${what} must be primitive`);
		if (header.length > maxBytes) {
			throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than the ${maxBytes} bytes allowed`);
		}
		return (await this.input.read(header.length, truncated)).slice();
	}

	/**
	 * Streams the content octets of an OCTET STRING (or an IMPLICIT-tagged one) whose header
	 * was just read: primitive, or constructed from segments, themselves possibly
	 * constructed, with definite or indefinite lengths (X.690 §8.7.3). The chunks are views
	 * of the input; nothing is buffered beyond one input chunk.
	 */
	async *octetString(header: BerHeader): Chunks {
		if (!header.constructed) {
			if (header.length === undefined) throw malformed("indefinite primitive OCTET STRING");
			yield* this.input.take(header.length, truncated);
			return;
		}
		this.enter(header);
		while (await this.hasMore()) {
			const segment = await this.readHeader();
			// X.690 §8.7.3.2 says the segments are OCTET STRINGs; some encoders repeat the
			// outer IMPLICIT tag instead. Both are accepted.
			const universal = segment.tagClass === 0 && segment.tagNumber === TAG.OCTET_STRING;
			const repeated = segment.tagClass === header.tagClass && segment.tagNumber === header.tagNumber;
			if (!universal && !repeated) throw malformed("constructed OCTET STRING segment is not an OCTET STRING");
			yield* this.octetString(segment);
		}
		await this.leave();
	}

	/** A whole OCTET STRING's content (see {@link octetString}) of at most `maxBytes`. */
	async readOctetString(header: BerHeader, maxBytes: number, what: string): Promise<Uint8Array> {
		const parts: Uint8Array[] = [];
		let total = 0;
		for await (const chunk of this.octetString(header)) {
			total += chunk.byteLength;
			if (total > maxBytes) {
				throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than the ${maxBytes} bytes allowed`);
			}
			parts.push(chunk);
		}
		return concatBytes(parts);
	}

	#checkFits(header: BerHeader): void {
		const end = this.#frames[this.#frames.length - 1];
		if (end === undefined) return;
		const needed = header.headerLength + (header.length ?? 2);
		if (this.position + needed > end) throw malformed("element runs past its container");
	}

	#checkInside(): void {
		const end = this.#frames[this.#frames.length - 1];
		if (end !== undefined && this.position > end) throw malformed("element runs past its container");
	}
}
