import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileStream } from "./file-source.ts";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-file-source-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** This process's descriptors open on files in `dir`. */
function openFiles(): string[] {
	return readdirSync("/proc/self/fd").filter((fd) => {
		try {
			return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
		} catch {
			return false;
		}
	});
}

async function eventuallyNoOpenFiles(): Promise<void> {
	const deadline = Date.now() + 5000;
	while (openFiles().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
	expect(openFiles()).toEqual([]);
}

describe("readFileStream", () => {
	it("reads a file of several chunks whole, and closes it at the end", async () => {
		const bytes = randomBytes(1_000_000);
		writeFileSync(join(dir, "f"), bytes);
		const read = Buffer.from(await new Response(readFileStream(join(dir, "f"))).arrayBuffer());
		expect(read.equals(bytes)).toBe(true);
		await eventuallyNoOpenFiles();
	});

	it("opens nothing until read, and closes the file when the reader stops early, a read pending or not", async () => {
		writeFileSync(join(dir, "f"), randomBytes(2_000_000));
		const unread = readFileStream(join(dir, "f"));
		expect(openFiles()).toEqual([]);
		await unread.cancel();
		for (const pending of [false, true]) {
			const reader = readFileStream(join(dir, "f")).getReader();
			await reader.read();
			const next = pending ? reader.read() : null;
			await reader.cancel();
			await next;
		}
		await eventuallyNoOpenFiles();
	});

	it("errors the stream when the file is gone", async () => {
		await expect(new Response(readFileStream(join(dir, "missing"))).arrayBuffer()).rejects.toThrow(/ENOENT/);
	});
});
