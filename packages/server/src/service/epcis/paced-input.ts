import { setImmediate } from "node:timers/promises";
import { type EpcisInput, toChunks } from "@as2kit/core";

/** About 30 ms of validation: the longest the event loop waits on a document between two turns. */
const PIECE_BYTES = 64 * 1024;

/**
 * The document in pieces of at most 64 KB with a turn of the event loop between two: the
 * validator is synchronous between the chunks it awaits, so a 16 MB JSON body (one string)
 * or a multipart body that arrived faster than it is read would otherwise hold the process
 * for seconds, `/health` and every other request with it (issue #16, defect 2).
 */
export async function* paced(input: EpcisInput): AsyncGenerator<Uint8Array> {
	const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
		typeof input === "string" ? [Buffer.from(input, "utf8")] : input instanceof Uint8Array ? [input] : toChunks(input);
	for await (const chunk of chunks) {
		for (let at = 0; at < chunk.byteLength; at += PIECE_BYTES) {
			yield chunk.subarray(at, at + PIECE_BYTES);
			await setImmediate();
		}
	}
}
