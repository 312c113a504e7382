import type { EpcisInput } from "../types.ts";
import { XML_CODES, XmlSyntaxError } from "./xml-syntax-error.ts";

const SLICE = 256 * 1024;

/**
 * Any accepted input as UTF-8-decoded text chunks with XML line ends normalized to LF
 * (XML 1.0 §2.11). A byte-order mark is dropped; malformed UTF-8 is a parse error.
 */
export async function* toTextChunks(input: EpcisInput): AsyncGenerator<string> {
	let carryCr = false;
	const normalize = (text: string, last: boolean): string => {
		let t = carryCr ? `\r${text}` : text;
		carryCr = !last && t.endsWith("\r");
		if (carryCr) t = t.slice(0, -1);
		return t.includes("\r") ? t.replace(/\r\n?/g, "\n") : t;
	};
	if (typeof input === "string") {
		const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
		for (let i = 0; i < text.length; i += SLICE) yield normalize(text.slice(i, i + SLICE), i + SLICE >= text.length);
		return;
	}
	const decoder = new TextDecoder("utf-8", { fatal: true });
	const decode = (bytes: Uint8Array | undefined, last: boolean): string => {
		try {
			return bytes ? decoder.decode(bytes, { stream: !last }) : decoder.decode();
		} catch (error) {
			throw new XmlSyntaxError(XML_CODES.encoding, "input is not valid UTF-8", undefined, undefined, error);
		}
	};
	const chunks: AsyncIterable<Uint8Array> =
		input instanceof Uint8Array ? slices(input) : (input as AsyncIterable<Uint8Array>);
	for await (const chunk of chunks) {
		const text = decode(chunk, false);
		if (text) yield normalize(text, false);
	}
	const rest = normalize(decode(undefined, true), true);
	if (rest) yield rest;
}

async function* slices(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
	for (let i = 0; i < bytes.byteLength; i += SLICE) yield bytes.subarray(i, i + SLICE);
}
