import type { SegmentKey } from "./segment-key.ts";

/**
 * A segment record: a 32-byte header, then the blob's bytes. The header repeats what the key
 * says (the segment's id, the record's offset, the length), so that a key that does not point
 * at the start of a record of its own segment reads as no blob, never as garbage.
 *
 *   0  magic "as2b"
 *   4  state: "LIVE", or zeros once deleted
 *   8  the segment's id (8 bytes)
 *  16  the record's offset (u48 LE, then 2 zero bytes)
 *  24  the blob's length (u48 LE, then 2 zero bytes)
 */
export const HEADER_BYTES = 32;
const MAGIC = 0x62_32_73_61; // "as2b" read as a little-endian u32
const LIVE = 0x45_56_49_4c; // "LIVE"
export const STATE_OFFSET = 4;
/** The state of a deleted record, written over LIVE. */
export const DEAD_STATE = new Uint8Array(4);

export function encodeHeader(key: SegmentKey): Buffer {
	const header = Buffer.alloc(HEADER_BYTES);
	header.writeUInt32LE(MAGIC, 0);
	header.writeUInt32LE(LIVE, STATE_OFFSET);
	header.write(key.id, 8, 8, "hex");
	header.writeUIntLE(key.offset, 16, 6);
	header.writeUIntLE(key.length, 24, 6);
	return header;
}

/** What the header at the start of `bytes` says of its record, whatever its state. */
export function headerMatches(bytes: Uint8Array, key: SegmentKey): boolean {
	if (bytes.byteLength < HEADER_BYTES) return false;
	const header = Buffer.from(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
	return (
		header.readUInt32LE(0) === MAGIC &&
		header.toString("hex", 8, 16) === key.id &&
		header.readUIntLE(16, 6) === key.offset &&
		header.readUInt16LE(22) === 0 &&
		header.readUIntLE(24, 6) === key.length &&
		header.readUInt16LE(30) === 0
	);
}

/** The header at the start of `bytes` is `key`'s, and its blob not deleted. */
export function isLiveRecord(bytes: Uint8Array, key: SegmentKey): boolean {
	return (
		headerMatches(bytes, key) &&
		Buffer.from(bytes.buffer, bytes.byteOffset, HEADER_BYTES).readUInt32LE(STATE_OFFSET) === LIVE
	);
}
