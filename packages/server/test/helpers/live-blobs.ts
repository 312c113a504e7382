import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HEADER_BYTES } from "../../src/blobs/segment-record.ts";

/**
 * The blobs under a blob directory, as tests that check nothing is left behind count them: a
 * file is a blob, a segment file (stop 33) is its live records, `<segment>#<offset>`, and a
 * segment's ledger of freed ranges is none. A blob deleted again leaves nothing listed.
 */
export function liveBlobsUnder(root: string, paths?: string[]): string[] {
	const all = paths ?? (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[]);
	return all
		.filter((path) => statSync(join(root, path), { throwIfNoEntry: false })?.isFile() && !path.endsWith(".seg.freed"))
		.flatMap((path) => (path.endsWith(".seg") ? liveRecordsOf(join(root, path)).map((at) => `${path}#${at}`) : [path]))
		.sort();
}

/** The offsets of a segment file's live records (segment-record.ts: bytes 4–8 "LIVE", 24–30 the length). */
function liveRecordsOf(file: string): number[] {
	const segment = readFileSync(file);
	const live: number[] = [];
	for (let offset = 0; offset + HEADER_BYTES <= segment.byteLength; ) {
		if (segment.toString("latin1", offset + 4, offset + 8) === "LIVE") live.push(offset);
		offset += HEADER_BYTES + segment.readUIntLE(offset + 24, 6);
	}
	return live;
}
