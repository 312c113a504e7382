import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { As2Error } from "@as2kit/core";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, declaredLength, readLimitedBody } from "../../src/http/body.ts";

const tooLarge = () => new As2Error("REQUEST_TOO_LARGE", "too large");

/** A JSON app on the body helpers, answering errors as their code. */
function app() {
	return new Hono()
		.post("/echo", body(v.object({ text: v.string() }), { maxBytes: 64 }), (c) => c.json(c.var.body))
		.post("/limited", async (c) => c.json(await readLimitedBody(c, 64, tooLarge)))
		.onError((error, c) => c.json({ code: (error as As2Error).code }, (error as As2Error).status as 413));
}

/** A body whose reading is recorded, to tell whether a refusal came before reading. */
function watchedBody(text: string) {
	const watch = { read: false };
	// highWaterMark 0: nothing is pulled until someone reads.
	const stream = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				watch.read = true;
				controller.enqueue(new TextEncoder().encode(text));
				controller.close();
			},
		},
		{ highWaterMark: 0 },
	);
	return { stream, watch };
}

describe("request bodies under a byte limit (in process)", () => {
	it("refuses a declared Content-Length over the limit before reading a byte", async () => {
		const { stream, watch } = watchedBody(JSON.stringify({ text: "x".repeat(100) }));
		const response = await app().request("/echo", {
			method: "POST",
			headers: { "content-type": "application/json", "content-length": "111" },
			body: stream,
			duplex: "half",
		} as RequestInit);
		expect(response.status).toBe(413);
		expect(await response.json()).toEqual({ code: "REQUEST_TOO_LARGE" });
		expect(watch.read).toBe(false);
	});

	it("counts a body without a length as it streams, and refuses it past the limit", async () => {
		const { stream, watch } = watchedBody(JSON.stringify({ text: "x".repeat(100) }));
		const response = await app().request("/limited", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: stream,
			duplex: "half",
		} as RequestInit);
		expect(response.status).toBe(413);
		expect(watch.read).toBe(true);
	});

	it("ignores Content-Length when Transfer-Encoding is there too (RFC 9112 §6.3), and counts", () => {
		const context = (headers: Record<string, string>) =>
			({ req: { header: (name: string) => headers[name] } }) as Parameters<typeof declaredLength>[0];
		expect(declaredLength(context({ "content-length": "12" }))).toBe(12);
		expect(declaredLength(context({ "content-length": "12", "transfer-encoding": "chunked" }))).toBeNull();
		expect(declaredLength(context({ "content-length": "-1" }))).toBeNull();
		expect(declaredLength(context({}))).toBeNull();
	});
});

describe("request bodies under a byte limit (over Node HTTP)", () => {
	let server: ReturnType<typeof serve>;
	let port: number;
	beforeAll(async () => {
		server = serve({ fetch: app().fetch, hostname: "127.0.0.1", port: 0 });
		await new Promise<void>((resolve) => server.once("listening", () => resolve()));
		port = (server.address() as AddressInfo).port;
	});
	afterAll(async () => {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	/** POSTs `chunks` to `path`, with a Content-Length or chunked. */
	function post(path: string, chunks: string[], chunked: boolean): Promise<{ status: number; json: unknown }> {
		const bytes = Buffer.from(chunks.join(""));
		return new Promise((resolve, reject) => {
			const req = request(
				{
					host: "127.0.0.1",
					port,
					path,
					method: "POST",
					headers: {
						"content-type": "application/json",
						...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes.byteLength) }),
					},
					timeout: 5000,
				},
				(res) => {
					const parts: Buffer[] = [];
					res.on("data", (part: Buffer) => parts.push(part));
					res.on("end", () =>
						resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(parts).toString()) }),
					);
				},
			);
			req.on("error", reject);
			req.on("timeout", () => req.destroy(new Error("timed out")));
			for (const chunk of chunks) req.write(chunk);
			req.end();
		});
	}

	it("reads a body with a Content-Length whole, in one or several packets", async () => {
		expect(await post("/echo", ['{"text":', '"héllo"}'], false)).toEqual({ status: 200, json: { text: "héllo" } });
		expect(await post("/limited", ['{"text":"a"}'], false)).toEqual({ status: 200, json: { text: "a" } });
	});

	it("reads a chunked body under the limit and refuses one over it", async () => {
		expect(await post("/echo", ['{"text":', '"chunked"}'], true)).toEqual({ status: 200, json: { text: "chunked" } });
		const over = await post("/echo", ['{"text":"', "x".repeat(100), '"}'], true);
		expect(over).toEqual({ status: 413, json: { code: "REQUEST_TOO_LARGE" } });
	});

	it("refuses a declared length over the limit", async () => {
		expect(await post("/limited", [JSON.stringify({ text: "y".repeat(100) })], false)).toEqual({
			status: 413,
			json: { code: "REQUEST_TOO_LARGE" },
		});
	});
});
