import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { blobPaths, createFsBlobStore, type FsBlobStoreOptions } from "./fs-blob-store.ts";
import { parseSegmentKey, segmentPath } from "./segment-key.ts";
import { HEADER_BYTES } from "./segment-record.ts";

/**
 * Small blobs appended to segment files (issue #20, stop 33): keys chosen by the store,
 * hostile keys read as no blob, deletion that overwrites, segments unlinked once freed and of a
 * past hour, rotation, torn tails, several stores on one directory.
 */
const roots: string[] = [];
const opened: { close(): void }[] = [];
afterEach(() => {
	for (const store of opened.splice(0)) store.close();
	for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function newRoot(): string {
	const root = mkdtempSync(join(tmpdir(), "as2kit-segment-test-"));
	roots.push(root);
	return root;
}

function open(root: string, options: FsBlobStoreOptions = {}) {
	const store = createFsBlobStore(root, options);
	opened.push(store);
	return store;
}

/** A clock the test moves by hand. */
function clock(at = "2026-11-28T10:15:00.000Z") {
	let now = new Date(at).getTime();
	return {
		now: () => new Date(now),
		advanceHours(hours: number) {
			now += hours * 3_600_000;
		},
	};
}

async function* bodyOf(bytes: Uint8Array) {
	yield bytes;
}

async function read(blobs: ReturnType<typeof open>, key: string): Promise<Buffer | null> {
	const stream = await blobs.get(key);
	return stream && Buffer.from(await new Response(stream).arrayBuffer());
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The segment file a segment key names. */
function fileOf(root: string, key: string): string {
	const parsed = parseSegmentKey(key);
	if (!parsed) throw new Error(`not a segment key: ${key}`);
	return segmentPath(root, parsed.hour, parsed.id);
}

/** Every file under `root`, relative to it. */
const filesUnder = (root: string) =>
	(readdirSync(root, { recursive: true, encoding: "utf8" }) as string[])
		.filter((path) => statSync(join(root, path)).isFile())
		.sort();

describe("small blobs in segment files", () => {
	it("round-trips many small blobs of one store in one segment, and a large one still as a file of its own", async () => {
		const root = newRoot();
		const blobs = open(root);
		const written: { key: string; bytes: Buffer }[] = [];
		for (let i = 0; i < 300; i++) {
			const bytes = randomBytes(i % 7 === 0 ? 0 : 1 + ((i * 7919) % 20_000));
			const info = await blobs.put(`payloads/2026-11/${i}`, bodyOf(bytes));
			expect(info).toMatchObject({ bytes: bytes.byteLength, sha256: sha256(bytes) });
			written.push({ key: info.key, bytes });
		}
		for (const { key, bytes } of written) {
			expect((await read(blobs, key))?.equals(bytes), key).toBe(true);
			const chunks: Uint8Array[] = [];
			for await (const chunk of (await blobs.chunks!(key))!) chunks.push(chunk);
			expect(Buffer.concat(chunks).equals(bytes), key).toBe(true);
			expect(await blobs.stat(key)).toEqual({ key, bytes: bytes.byteLength, sha256: sha256(bytes) });
		}
		expect(new Set(written.map(({ key }) => fileOf(root, key))).size).toBe(1);
		const large = randomBytes(300_000);
		const info = await blobs.put("payloads/2026-11/large", bodyOf(large));
		expect(info.key).toBe("payloads/2026-11/large");
		expect(readFileSync(join(root, "payloads/2026-11/large")).equals(large)).toBe(true);
		expect(filesUnder(root)).toHaveLength(2);
	});

	it("keys a blob by its segment's hour and id, its record's offset and its length, within the safe-key rule", async () => {
		const root = newRoot();
		const blobs = open(root, { now: clock("2026-11-28T10:15:00.000Z").now });
		const first = await blobs.put("a", bodyOf(randomBytes(10)));
		const second = await blobs.put("b", bodyOf(randomBytes(7)));
		expect(first.key).toMatch(/^seg\/2026112810\/[0-9a-f]{16}\/0-10$/);
		expect(second.key).toBe(first.key.replace(/0-10$/, `${HEADER_BYTES + 10}-7`));
		for (const key of [first.key, second.key]) expect(() => blobPaths(root)(key)).not.toThrow();
		expect(statSync(fileOf(root, second.key)).size).toBe(2 * HEADER_BYTES + 17);
	});

	it("reads a key that is no live record of its own segment as no blob, whatever it says", async () => {
		const root = newRoot();
		const [one, other] = [open(root), open(root)];
		const mine = await one.put("x", bodyOf(randomBytes(100)));
		await other.put("y", bodyOf(randomBytes(50)));
		const theirs = await other.put("z", bodyOf(randomBytes(100)));
		const { hour, id, offset, length } = parseSegmentKey(mine.key)!;
		const at = (o: number, l: number, segment = id) => `seg/${hour}/${segment}/${o}-${l}`;
		const theirId = parseSegmentKey(theirs.key)!.id;
		const hostile = [
			"seg/../x",
			"seg/x",
			`seg/${hour}/${id}/0-`,
			`seg/${hour}/${id}/00-100`,
			`seg/${hour}/${id}/-1-100`,
			at(offset, length + 1),
			at(offset, length - 1),
			at(offset + 1, length - 1),
			at(offset + HEADER_BYTES, 10),
			at(10_000, 10),
			at(0, 262_145),
			at(0, 999_999_999_999_999),
			// Another segment's record (offset and length) under this segment's id, and the reverse.
			at(parseSegmentKey(theirs.key)!.offset, 100),
			at(offset, length, theirId),
			`seg/2026010100/${id}/0-100`,
			`seg/${hour}/${"0".repeat(16)}/0-100`,
		];
		// The other segment's first record is at the same offset, with another length.
		expect(await read(other, at(0, 50, theirId))).not.toBeNull();
		for (const key of hostile) {
			expect(await read(one, key), key).toBeNull();
			expect(await one.chunks!(key), key).toBeNull();
			expect(await one.stat(key), key).toBeNull();
			await one.delete(key);
		}
		// Nothing the hostile deletes named was touched.
		expect((await read(one, mine.key))?.byteLength).toBe(100);
		expect((await read(one, theirs.key))?.byteLength).toBe(100);
		expect(await one.stat(mine.key)).toEqual(mine);
	});

	it("deletes by overwriting: the bytes on disk are zeros, the record reads as none, twice is harmless", async () => {
		const root = newRoot();
		const blobs = open(root);
		const marker = Buffer.from(`secret-${randomBytes(16).toString("hex")}`.repeat(100));
		const before = await blobs.put("before", bodyOf(randomBytes(500)));
		const info = await blobs.put("secret", bodyOf(marker));
		const after = await blobs.put("after", bodyOf(randomBytes(500)));
		const path = fileOf(root, info.key);
		expect(readFileSync(path).includes(marker)).toBe(true);
		await blobs.delete(info.key);
		const raw = readFileSync(path);
		const { offset, length } = parseSegmentKey(info.key)!;
		expect(raw.includes(marker.subarray(0, 32))).toBe(false);
		expect(raw.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length).every((byte) => byte === 0)).toBe(true);
		expect(await read(blobs, info.key)).toBeNull();
		expect(await blobs.stat(info.key)).toBeNull();
		await blobs.delete(info.key);
		expect(readFileSync(`${path}.freed`, "latin1").split("\n").filter(Boolean)).toEqual([
			`${offset} ${length}`,
			`${offset} ${length}`,
		]);
		for (const neighbour of [before, after]) expect(await blobs.stat(neighbour.key)).toEqual(neighbour);
	});

	it("unlinks a segment with its ledger once every record is freed and its hour is past, not before", async () => {
		const root = newRoot();
		const time = clock("2026-11-28T10:15:00.000Z");
		const blobs = open(root, { now: time.now });
		const keys = [];
		for (let i = 0; i < 3; i++) keys.push((await blobs.put(`k${i}`, bodyOf(randomBytes(1000 + i)))).key);
		const path = fileOf(root, keys[0]!);
		// Freed within its hour: kept (its writer may still append).
		await blobs.delete(keys[0]!);
		await blobs.delete(keys[0]!);
		time.advanceHours(2);
		// A past hour, but one record still live: kept.
		await blobs.delete(keys[1]!);
		expect(existsSync(path)).toBe(true);
		expect(await read(blobs, keys[2]!)).not.toBeNull();
		// The last record: the segment, its ledger and its hour's directory go.
		await blobs.delete(keys[2]!);
		expect(existsSync(path)).toBe(false);
		expect(existsSync(`${path}.freed`)).toBe(false);
		expect(existsSync(join(root, "segments", "2026112810"))).toBe(false);
		// Another store's late delete of a blob of it is harmless.
		await open(root, { now: time.now }).delete(keys[1]!);
		expect(filesUnder(root)).toEqual([]);
	});

	it("opens a new segment at the UTC hour and before a segment would pass its size", async () => {
		const root = newRoot();
		const time = clock("2026-11-28T10:59:00.000Z");
		const blobs = open(root, { now: time.now, segmentBytes: 900 });
		const keys = [];
		for (let i = 0; i < 6; i++) keys.push((await blobs.put(`k${i}`, bodyOf(randomBytes(300)))).key);
		// Records of 332 bytes (a 32-byte header and 300): two to a segment of 900.
		expect(new Set(keys.map((key) => fileOf(root, key))).size).toBe(3);
		for (const key of keys) expect(statSync(fileOf(root, key)).size).toBeLessThanOrEqual(900);
		time.advanceHours(1);
		const next = (await blobs.put("next", bodyOf(randomBytes(10)))).key;
		expect(next).toMatch(/^seg\/2026112811\/[0-9a-f]{16}\/0-10$/);
		// A blob larger than a segment still gets one (a segment of one record).
		expect((await blobs.put("big", bodyOf(randomBytes(5_000)))).key).toMatch(/\/0-5000$/);
		for (const key of keys) expect((await read(blobs, key))?.byteLength).toBe(300);
	});

	it("after a torn tail, a new store appends to a new segment, and the old segment's whole records still read", async () => {
		const root = newRoot();
		const first = open(root);
		const kept = await first.put("kept", bodyOf(randomBytes(2_000)));
		const torn = await first.put("torn", bodyOf(randomBytes(2_000)));
		first.close();
		// A crash mid-append: the second record cut in the middle of its bytes.
		const path = fileOf(root, torn.key);
		const tornSize = parseSegmentKey(torn.key)!.offset + HEADER_BYTES + 1_000;
		truncateSync(path, tornSize);
		const second = open(root);
		expect(await read(second, torn.key)).toBeNull();
		expect(await second.stat(kept.key)).toEqual(kept);
		const next = await second.put("next", bodyOf(randomBytes(100)));
		expect(fileOf(root, next.key)).not.toBe(path);
		expect(statSync(path).size).toBe(tornSize);
		// A delete of the torn record changes nothing.
		await second.delete(torn.key);
		expect(statSync(path).size).toBe(tornSize);
		expect(existsSync(`${path}.freed`)).toBe(false);
	});

	it("two stores on one directory (two instances on a shared volume) append to their own segments and read and delete each other's blobs", async () => {
		const root = newRoot();
		const stores = [open(root), open(root)];
		const written: { key: string; bytes: Buffer; by: number }[] = [];
		for (let i = 0; i < 40; i++) {
			const bytes = randomBytes(100 + i);
			written.push({ key: (await stores[i % 2]!.put(`k${i}`, bodyOf(bytes))).key, bytes, by: i % 2 });
		}
		expect(new Set(written.map(({ key }) => fileOf(root, key))).size).toBe(2);
		for (const { key, by } of written) expect(fileOf(root, key)).toBe(fileOf(root, written[by]!.key));
		for (const { key, bytes, by } of written) expect((await read(stores[1 - by]!, key))?.equals(bytes)).toBe(true);
		for (const { key, by } of written.slice(0, 10)) await stores[1 - by]!.delete(key);
		for (const [i, { key }] of written.entries()) expect((await read(stores[i % 2]!, key)) === null).toBe(i < 10);
	});

	it("still reads, stats and deletes a small blob written as a file before segments, by its path", async () => {
		const root = newRoot();
		const bytes = randomBytes(5_000);
		const before = await open(root, { segments: false }).put("payloads/2026-10/old", bodyOf(bytes));
		expect(before.key).toBe("payloads/2026-10/old");
		expect(existsSync(join(root, "payloads/2026-10/old"))).toBe(true);
		const blobs = open(root);
		expect((await read(blobs, before.key))?.equals(bytes)).toBe(true);
		expect(await blobs.stat(before.key)).toEqual(before);
		await blobs.delete(before.key);
		expect(existsSync(join(root, "payloads/2026-10/old"))).toBe(false);
	});

	it("refuses the store's own names as a key to put", async () => {
		const blobs = open(newRoot());
		for (const key of ["seg/2026112810/0123456789abcdef/0-1", "segments/x"])
			await expect(blobs.put(key, bodyOf(randomBytes(1)))).rejects.toThrow(/unsafe blob key/);
	});
});
