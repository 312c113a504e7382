import { constants, createReadStream, createWriteStream } from "node:fs";
import { access, readFile, rm, stat, writeFile } from "node:fs/promises";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ByteSource, Chunks } from "../bytes/index.ts";
import { MimeHeaders } from "../mime/index.ts";
import { InputError } from "./exit-codes.ts";

/**
 * The size of a readable file. Files are read lazily, inside the engine: checked first, a
 * missing or unreadable file is an input error (exit 3), not an unreadable message (exit 1).
 */
async function readableFile(path: string): Promise<number> {
	const info = await stat(path);
	if (!info.isFile()) throw new InputError(`${path} is not a file`);
	await access(path, constants.R_OK);
	return info.size;
}

const openFile = (path: string) => createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Uint8Array>;

/** A file as a re-openable source: the payload is read from disk on each pass, never held. */
export async function fileSource(path: string): Promise<ByteSource> {
	const size = await readableFile(path);
	return { size, open: () => openFile(path) };
}

export async function fileChunks(path: string): Promise<Chunks> {
	await readableFile(path);
	return openFile(path);
}

export async function writeChunks(path: string, chunks: Chunks): Promise<void> {
	try {
		await pipeline(Readable.from(chunks, { objectMode: false }), createWriteStream(path) as Writable);
	} catch (error) {
		await rm(path, { force: true });
		throw error;
	}
}

/** `Name: value` lines, as `build` writes them and as captured from HTTP traffic. */
export async function readHeadersFile(path: string): Promise<MimeHeaders> {
	const list: Array<[string, string]> = [];
	for (const line of (await readFile(path, "latin1")).split(/\r?\n/)) {
		const last = list[list.length - 1];
		if (/^[ \t]/.test(line) && last) {
			// A folded capture (RFC 5322 §2.2.3): the continuation belongs to the previous field.
			last[1] = `${last[1]} ${line.trim()}`;
			continue;
		}
		const colon = line.indexOf(":");
		if (colon > 0) list.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
	}
	return new MimeHeaders(list);
}

export async function writeHeadersFile(
	path: string,
	headers: MimeHeaders,
	extra: Array<[string, string]> = [],
): Promise<void> {
	const lines = [...headers.entries(), ...extra].map(([n, v]) => `${n}: ${v}\r\n`).join("");
	await writeFile(path, lines, "latin1");
}

export const readBytes = async (path: string): Promise<Uint8Array> => new Uint8Array(await readFile(path));
