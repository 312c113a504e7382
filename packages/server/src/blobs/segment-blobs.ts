import { randomBytes } from "node:crypto";
import {
	appendFileSync,
	closeSync,
	fstatSync,
	mkdirSync,
	openSync,
	readSync,
	rmdirSync,
	unlinkSync,
	writeSync,
	writevSync,
} from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "./file-sink.ts";
import { formatSegmentKey, hourOf, hourStart, type SegmentKey, segmentPath } from "./segment-key.ts";
import { DEAD_STATE, encodeHeader, HEADER_BYTES, headerMatches, isLiveRecord, STATE_OFFSET } from "./segment-record.ts";

export interface SegmentOptions {
	/** The clock that names segments by hour and says which hours are past. */
	now?: () => Date;
	/** A segment is closed, and the next one opened, before it would pass this size. */
	segmentBytes?: number;
	/** The largest blob a segment holds: a key naming more reads as no blob (no allocation a key chooses). */
	maxBlobBytes: number;
}

/**
 * A segment's hour is past, for unlinking it, this long after its end: another instance whose
 * clock lags ours may still append to it until its own clock passes the hour.
 */
const PAST_HOUR_GRACE_MS = 10 * 60_000;
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
/** How many segments' ledgers are remembered as far as they were read (see `freedOf`). */
const LEDGERS_REMEMBERED = 32;
const ZEROS = new Uint8Array(64 * 1024);

interface OpenSegment {
	hour: string;
	id: string;
	path: string;
	fd: number;
	/** Where the next record starts: this process is the segment's only writer. */
	size: number;
}

interface LedgerRead {
	/** How far the ledger was read (whole lines only). */
	read: number;
	/** The offsets of the records it names, each once: deleting twice is harmless. */
	offsets: Set<number>;
	/** The bytes those records take, headers included. */
	freed: number;
}

export interface SegmentBlobs {
	/** Appends a blob of `length` bytes (`chunks`) as one record, in one write; returns its key. */
	append(chunks: readonly Uint8Array[], length: number): string;
	/** The blob `key` names, or null when it is not a live record of its segment. */
	read(key: SegmentKey): Uint8Array | null;
	/** Deletes the blob: its bytes zeroed, its header marked dead, its range in the segment's ledger. */
	remove(key: SegmentKey): void;
	close(): void;
}

/**
 * Small blobs appended to segment files under `root` (issue #20): one open segment per store,
 * written at the offset the store tracks, one `writev` a blob; no file, directory entry or
 * rename a blob. Segments are `segments/<hour>/<random id>.seg`, never shared by two processes
 * or two runs, closed at `segmentBytes` and at the UTC hour. A write that fails may leave a
 * torn record at the tail: the segment is given up and the next blob opens a new one, so
 * nothing is ever appended after a torn tail, and nobody holds a key to it.
 *
 * Durability is the same as a file each (no fsync either way: a blob's bytes are in the page
 * cache when `put` returns, as a renamed file's were).
 */
export function createSegmentBlobs(root: string, options: SegmentOptions): SegmentBlobs {
	const now = options.now ?? (() => new Date());
	const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
	let current: OpenSegment | null = null;
	const ledgers = new Map<string, LedgerRead>();

	const openSegment = (hour: string): OpenSegment => {
		const id = randomBytes(8).toString("hex");
		const path = segmentPath(root, hour, id);
		mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
		// O_EXCL: a segment is never shared, even if two random ids met; read too (a blob read back from the open segment).
		const fd = openSync(path, "wx+", PRIVATE_FILE_MODE);
		return { hour, id, path, fd, size: 0 };
	};
	const closeCurrent = () => {
		if (current) closeSync(current.fd);
		current = null;
	};

	/** The record's bytes (header and blob) from the segment, or null when the file ends before. */
	const readRecord = (key: SegmentKey): Uint8Array | null => {
		if (key.length > options.maxBlobBytes) return null;
		const open = current && current.id === key.id && current.hour === key.hour ? current : null;
		let fd: number;
		if (open) fd = open.fd;
		else {
			try {
				fd = openSync(segmentPath(root, key.hour, key.id), "r");
			} catch {
				return null;
			}
		}
		try {
			const record = new Uint8Array(HEADER_BYTES + key.length);
			let read = 0;
			while (read < record.byteLength) {
				const n = readSync(fd, record, read, record.byteLength - read, key.offset + read);
				if (n === 0) return null;
				read += n;
			}
			return record;
		} finally {
			if (!open) closeSync(fd);
		}
	};

	/**
	 * The bytes of the records of `path` its ledger names as freed, reading only what was
	 * appended since this store last looked (other instances append to it too).
	 */
	const freedOf = (ledgerPath: string): number => {
		let state = ledgers.get(ledgerPath);
		if (!state) {
			state = { read: 0, offsets: new Set(), freed: 0 };
			if (ledgers.size >= LEDGERS_REMEMBERED) ledgers.delete(ledgers.keys().next().value!);
			ledgers.set(ledgerPath, state);
		}
		const fd = openSync(ledgerPath, "r");
		try {
			const size = fstatSync(fd).size;
			if (size <= state.read) return state.freed;
			const bytes = Buffer.alloc(size - state.read);
			const n = readSync(fd, bytes, 0, bytes.byteLength, state.read);
			const text = bytes.toString("latin1", 0, n);
			const whole = text.lastIndexOf("\n") + 1;
			for (const line of text.slice(0, whole).split("\n")) {
				const [offset, length] = line.split(" ").map(Number);
				if (offset === undefined || length === undefined || !Number.isSafeInteger(offset)) continue;
				if (state.offsets.has(offset)) continue;
				state.offsets.add(offset);
				state.freed += HEADER_BYTES + length;
			}
			state.read += whole;
			return state.freed;
		} finally {
			closeSync(fd);
		}
	};

	/**
	 * A segment of a past hour (nobody appends to it) whose ledger frees every byte of it is
	 * unlinked with its ledger. A torn tail (a crash mid-append) is never freed, so its segment
	 * stays: see "what is left" in docs/performance.md.
	 */
	const unlinkIfFreed = (key: SegmentKey, path: string, fd: number) => {
		if (now().getTime() < hourStart(key.hour) + 3_600_000 + PAST_HOUR_GRACE_MS) return;
		const ledgerPath = `${path}.freed`;
		if (freedOf(ledgerPath) < fstatSync(fd).size) return;
		if (current?.path === path) closeCurrent();
		for (const file of [path, ledgerPath]) {
			try {
				unlinkSync(file);
			} catch {
				// Another instance unlinked it first.
			}
		}
		ledgers.delete(ledgerPath);
		try {
			rmdirSync(dirname(path));
		} catch {
			// The hour's directory still holds other segments.
		}
	};

	return {
		append(chunks, length) {
			const hour = hourOf(now());
			if (
				current &&
				(current.hour !== hour || (current.size > 0 && current.size + HEADER_BYTES + length > segmentBytes))
			)
				closeCurrent();
			current ??= openSegment(hour);
			const key = { hour, id: current.id, offset: current.size, length };
			const buffers = [encodeHeader(key), ...chunks.filter((chunk) => chunk.byteLength > 0)];
			const total = HEADER_BYTES + length;
			try {
				let written = writevSync(current.fd, buffers, key.offset);
				if (written < total) {
					// A short write (a regular file rarely makes one): the rest, from a copy.
					const whole = Buffer.concat(buffers);
					while (written < total)
						written += writeSync(current.fd, whole, written, total - written, key.offset + written);
				}
			} catch (error) {
				// Part of the record may be on disk: no later record is written after it.
				closeCurrent();
				throw error;
			}
			current.size += total;
			return formatSegmentKey(key);
		},

		read(key) {
			const record = readRecord(key);
			return record && isLiveRecord(record, key) ? record.subarray(HEADER_BYTES) : null;
		},

		remove(key) {
			if (key.length > options.maxBlobBytes) return;
			const path = segmentPath(root, key.hour, key.id);
			let fd: number;
			try {
				fd = openSync(path, "r+");
			} catch {
				return; // Its segment is gone: every blob of it was deleted.
			}
			try {
				const header = new Uint8Array(HEADER_BYTES);
				if (readSync(fd, header, 0, HEADER_BYTES, key.offset) < HEADER_BYTES || !headerMatches(header, key)) return;
				if (fstatSync(fd).size < key.offset + HEADER_BYTES + key.length) return;
				// Dead first: a crash before the zeros are all written leaves a blob nobody reads.
				writeSync(fd, DEAD_STATE, 0, DEAD_STATE.byteLength, key.offset + STATE_OFFSET);
				for (let done = 0; done < key.length; ) {
					const n = Math.min(ZEROS.byteLength, key.length - done);
					done += writeSync(fd, ZEROS, 0, n, key.offset + HEADER_BYTES + done);
				}
				// Written again when deleted again: a crash between the zeros and this line is mended by a retry.
				appendFileSync(`${path}.freed`, `${key.offset} ${key.length}\n`, { mode: PRIVATE_FILE_MODE });
				try {
					unlinkIfFreed(key, path, fd);
				} catch {
					// The blob is deleted; its segment is looked at again by the next delete of one of its blobs.
				}
			} finally {
				closeSync(fd);
			}
		},

		close: closeCurrent,
	};
}
