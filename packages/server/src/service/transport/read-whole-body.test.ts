import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readWholeBody } from "./read-whole-body.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | null) => (body === null ? null : new TextDecoder().decode(body));

describe("readWholeBody", () => {
	it("reads every chunk into one array, a single chunk as it came", async () => {
		const several = new PassThrough();
		const reading = readWholeBody(several, 100);
		several.write(bytes("AS2 "));
		several.write(bytes("message "));
		several.end(bytes("body"));
		expect(text(await reading)).toBe("AS2 message body");

		const single = new PassThrough();
		const chunk = bytes("one chunk");
		const readingOne = readWholeBody(single, 100);
		single.end(chunk);
		const body = await readingOne;
		expect(text(body)).toBe("one chunk");
		expect(body!.byteLength).toBe(chunk.byteLength);
	});

	it("reads an empty body as an empty array", async () => {
		const empty = new PassThrough();
		const reading = readWholeBody(empty, 100);
		empty.end();
		expect((await reading)?.byteLength).toBe(0);
	});

	it("reads a body of exactly max bytes, and gives null past it without destroying the stream", async () => {
		const exact = new PassThrough();
		const readingExact = readWholeBody(exact, 10);
		exact.end(bytes("0123456789"));
		expect(text(await readingExact)).toBe("0123456789");

		const over = new PassThrough();
		const reading = readWholeBody(over, 10);
		over.write(bytes("01234"));
		over.write(bytes("56789X"));
		expect(await reading).toBeNull();
		expect(over.destroyed).toBe(false);
		expect(over.listenerCount("data")).toBe(0);
		expect(over.listenerCount("end")).toBe(0);
		// What is left is still there for whoever reads next (the lingering read of early-answers.ts).
		over.end(bytes("rest"));
		const rest: Uint8Array[] = [];
		over.on("data", (chunk: Uint8Array) => rest.push(chunk));
		over.resume();
		await new Promise((done) => over.once("end", done));
		expect(text(Buffer.concat(rest))).toBe("rest");
	});

	it("rejects when the body fails, and when it closes before its end", async () => {
		const failing = new PassThrough();
		const reading = readWholeBody(failing, 100);
		failing.write(bytes("part"));
		failing.destroy(new Error("aborted"));
		await expect(reading).rejects.toThrow("aborted");

		const closed = new PassThrough();
		const readingClosed = readWholeBody(closed, 100);
		closed.write(bytes("part"));
		closed.destroy();
		await expect(readingClosed).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
	});

	it("rejects at once for a request destroyed before its body was read", async () => {
		const gone = new PassThrough();
		gone.destroy();
		await new Promise((done) => gone.once("close", done));
		await expect(readWholeBody(gone, 100)).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
		const failed = new PassThrough();
		failed.on("error", () => {});
		failed.destroy(new Error("reset"));
		await new Promise((done) => failed.once("close", done));
		await expect(readWholeBody(failed, 100)).rejects.toThrow("reset");
	});
});
