import { join } from "node:path";

/**
 * Small blobs live as records of append-only segment files (issue #20, "Small blobs in segment
 * files (stop 33)" in docs/performance.md). A segment blob's key names its segment, where its
 * record starts and its length: `seg/<UTC yyyymmddhh>/<segment id>/<record offset>-<length>`.
 * The store chooses it (`BlobStore.put` returns the key to read the blob by); keys that are not
 * segment keys are paths under the blob directory, as before.
 */
export interface SegmentKey {
	/** The UTC hour the segment was opened in, `yyyymmddhh`: no process appends to a past hour's segment. */
	hour: string;
	/** 16 hex digits, random: no two processes, nor two runs of one, share a segment. */
	id: string;
	/** Where the record's header starts in the segment file. */
	offset: number;
	/** The blob's bytes, after the header. */
	length: number;
}

/** Keys that start so are the store's own names: `put` refuses them as a name hint (see fs-blob-store.ts). */
export const SEGMENT_KEY_PREFIX = "seg/";
/** Where segment files are, under the blob directory. */
export const SEGMENT_DIRECTORY = "segments";

// Up to 15 digits: offsets and lengths stay exact in a double (2^53 > 10^15).
const SEGMENT_KEY = /^seg\/(\d{10})\/([0-9a-f]{16})\/(0|[1-9]\d{0,14})-(0|[1-9]\d{0,14})$/;

export function formatSegmentKey(key: SegmentKey): string {
	return `${SEGMENT_KEY_PREFIX}${key.hour}/${key.id}/${key.offset}-${key.length}`;
}

/** The segment key `key` names, or null when it is no well-formed segment key. */
export function parseSegmentKey(key: string): SegmentKey | null {
	const match = SEGMENT_KEY.exec(key);
	if (!match) return null;
	return { hour: match[1]!, id: match[2]!, offset: Number(match[3]), length: Number(match[4]) };
}

/** `yyyymmddhh` of `at`, in UTC. */
export function hourOf(at: Date): string {
	return at.toISOString().slice(0, 13).replace(/[-T]/g, "");
}

/** The start of hour `hour` (`yyyymmddhh`), in ms since the epoch. */
export function hourStart(hour: string): number {
	return Date.UTC(
		Number(hour.slice(0, 4)),
		Number(hour.slice(4, 6)) - 1,
		Number(hour.slice(6, 8)),
		Number(hour.slice(8, 10)),
	);
}

/** The segment file of (`hour`, `id`) under the blob directory `root`. */
export function segmentPath(root: string, hour: string, id: string): string {
	return join(root, SEGMENT_DIRECTORY, hour, `${id}.seg`);
}
