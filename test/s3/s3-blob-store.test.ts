/**
 * The S3 blob store's own failure paths (issue #18, section 5), on s3rver behind the fault
 * proxy of s3-server.ts: aborted uploads leave no parts, reads go by ranges and stop when the
 * reader stops, broken bodies resume, every S3 failure is a 503 with its cause and no secret,
 * and no request waits forever.
 */
import { randomBytes } from "node:crypto";
import diagnostics from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { inspect } from "node:util";
import { isAs2Error } from "@as2kit/core";
import type { BlobStore } from "@as2kit/core/store";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createS3BlobStore } from "../../packages/server/src/blobs/s3-blob-store.ts";
import { createS3Client, type S3Timeouts } from "../../packages/server/src/blobs/s3-open.ts";
import type { S3Settings } from "../../packages/server/src/blobs/s3-settings.ts";
import { S3RVER_CREDENTIALS, type S3TestServer, startS3Server } from "./s3-server.ts";

const MIB = 1024 * 1024;
const SHORT: S3Timeouts = { connectMs: 1000, answerMs: 1500, idleMs: 1000 };

let s3: S3TestServer;
const clients: { destroy(): void }[] = [];
beforeAll(async () => {
	s3 = await startS3Server();
});
afterAll(async () => {
	for (const client of clients) client.destroy();
	await s3?.stop();
});
afterEach(() => {
	s3.fault = null;
	s3.requests.length = 0;
});

function settings(overrides: Partial<S3Settings> = {}): S3Settings {
	return {
		bucket: s3.bucket,
		prefix: "",
		region: "us-east-1",
		endpoint: s3.endpoint,
		credentials: S3RVER_CREDENTIALS,
		...overrides,
	};
}

/** A store with the smallest parts S3 takes (5 MiB) and 1 MiB ranges, so tests stay small. */
function store(overrides: Partial<S3Settings> = {}, timeouts?: S3Timeouts, rangeBytes = MIB): BlobStore {
	const client = createS3Client(settings(overrides), timeouts);
	clients.push(client);
	return createS3BlobStore({ client, bucket: overrides.bucket ?? s3.bucket, partBytes: 5 * MIB, rangeBytes });
}

/** 1 MiB chunks up to `bytes`, then `end()`: its error, or a plain end. Records whether it was let go of. */
function source(bytes: number, end: () => void = () => {}) {
	const watch = { ended: false };
	const chunks = (async function* () {
		try {
			for (let sent = 0; sent < bytes; sent += MIB) yield randomBytes(Math.min(MIB, bytes - sent));
			end();
		} finally {
			watch.ended = true;
		}
	})();
	return { chunks, watch };
}

const partRequests = () => s3.requests.filter((r) => r.startsWith("PUT") && r.includes("partNumber="));
const aborts = () => s3.requests.filter((r) => r.startsWith("DELETE") && r.includes("uploadId="));

async function eventually(check: () => boolean, what: string): Promise<void> {
	for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
		if (check()) return;
		await new Promise((r) => setTimeout(r, 20));
	}
	throw new Error(`never: ${what}`);
}

describe("S3 blob store: uploads", () => {
	it("sends a payload over one part as a multipart upload, visible only once complete", async () => {
		const blobs = store();
		let release!: () => void;
		const paused = new Promise<void>((resolve) => {
			release = resolve;
		});
		const body = (async function* () {
			yield randomBytes(6 * MIB);
			await paused;
			yield randomBytes(5 * MIB);
		})();
		const put = blobs.put("visible/when-complete", body);
		await eventually(() => partRequests().length === 1, "the first part was sent");
		expect(await blobs.get("visible/when-complete")).toBeNull();
		release();
		expect((await put).bytes).toBe(11 * MIB);
		expect(partRequests()).toHaveLength(3);
		expect((await blobs.stat("visible/when-complete"))?.bytes).toBe(11 * MIB);
		expect(s3.openUploads()).toEqual([]);
	});

	for (const [what, make, expected] of [
		[
			"the source fails",
			() =>
				source(10 * MIB, () => {
					throw new Error("client reset");
				}),
			/client reset/,
		],
		["the payload crosses maxBytes", () => source(12 * MIB), /exceeds/],
	] as const) {
		it(`aborts the multipart upload when ${what} after parts went out: no orphan parts, no object`, async () => {
			const blobs = store();
			const { chunks, watch } = make();
			const key = `aborted/${what.replaceAll(" ", "-")}`;
			await expect(blobs.put(key, chunks, { maxBytes: 11 * MIB })).rejects.toThrow(expected);
			expect(partRequests().length).toBeGreaterThanOrEqual(2);
			expect(aborts()).toHaveLength(1);
			expect(watch.ended).toBe(true);
			expect(s3.openUploads()).toEqual([]);
			expect(s3.objectKeys()).not.toContain(key);
		});
	}

	it("answers 503 SERVICE_UNAVAILABLE naming S3's error when a part is refused, lets go of the source, aborts", async () => {
		const blobs = store();
		s3.fault = (method, url) => (method === "PUT" && url.includes("partNumber=2") ? { kind: "error" } : null);
		const { chunks, watch } = source(20 * MIB);
		const error = await blobs.put("refused/part", chunks).catch((e) => e);
		expect(isAs2Error(error) && error.code).toBe("SERVICE_UNAVAILABLE");
		expect(error.status).toBe(503);
		expect(String(error.cause)).toMatch(/InternalError \(HTTP 500\)/);
		// The SDK's own retries: the part was asked three times, then the upload aborted.
		expect(partRequests().filter((r) => r.includes("partNumber=2"))).toHaveLength(3);
		expect(aborts()).toHaveLength(1);
		expect(watch.ended).toBe(true);
		expect(s3.openUploads()).toEqual([]);
	});

	it("gives up on a store that never answers, within the timeouts, on every kind of request", async () => {
		const blobs = store({}, SHORT);
		await blobs.put("stalled/existing", source(2 * MIB).chunks);
		s3.fault = () => ({ kind: "stall" });
		for (const call of [
			() => blobs.put("stalled/small", source(1000).chunks),
			() => blobs.put("stalled/large", source(7 * MIB).chunks),
			() => blobs.get("stalled/existing"),
			() => blobs.delete("stalled/existing"),
		]) {
			const started = Date.now();
			const error = await call().catch((e) => e);
			expect(isAs2Error(error) && error.code).toBe("SERVICE_UNAVAILABLE");
			expect(String(error.cause)).toMatch(/TimeoutError/);
			// Three attempts of 1.5 s at most each, with the SDK's backoff between them.
			expect(Date.now() - started).toBeLessThan(20_000);
		}
	});

	it("never puts the secret key in an error, its cause or its log form; names the S3 error", async () => {
		const secret = "do-not-log-this-secret-9f3a";
		// s3rver checks the access key id, not the signature: an unknown id makes S3 refuse.
		const blobs = store({ credentials: { accessKeyId: "AKIAUNKNOWN", secretAccessKey: secret } });
		// A HEAD's refusal has no body to name the error: its status says it.
		for (const [call, named] of [
			[() => blobs.put("secret/x", source(1000).chunks), /InvalidAccessKeyId \(HTTP 403\)/],
			[() => blobs.get("secret/x"), /\(HTTP 403\)/],
		] as const) {
			const error = await call().catch((e) => e);
			expect(isAs2Error(error) && error.code).toBe("SERVICE_UNAVAILABLE");
			expect(String(error.cause)).toMatch(named);
			const everything = `${inspect(error, { depth: 10, showHidden: true })} ${JSON.stringify(error)}`;
			expect(everything).not.toContain(secret);
		}
	});

	it("answers 503 naming NoSuchBucket for a bucket that is not there", async () => {
		const error = await store({ bucket: "no-such-bucket" })
			.put("x", source(10).chunks)
			.catch((e) => e);
		expect(isAs2Error(error) && error.code).toBe("SERVICE_UNAVAILABLE");
		expect(String(error.cause)).toMatch(/NoSuchBucket/);
	});
});

describe("S3 blob store: ranged reads", () => {
	const bytes = randomBytes(3 * MIB + 4321);
	beforeAll(async () => {
		await store().put(
			"ranged/blob",
			(async function* () {
				yield bytes;
			})(),
		);
	});
	const gets = () => s3.requests.filter((r) => r.startsWith("GET"));

	it("reads by 1 MiB ranges, each asked of the version the HEAD saw", async () => {
		const read = Buffer.from(await new Response(await store().get("ranged/blob")).arrayBuffer());
		expect(read.equals(bytes)).toBe(true);
		expect(gets().map((r) => r.split(" range=")[1])).toEqual([
			"bytes=0-1048575",
			"bytes=1048576-2097151",
			"bytes=2097152-3145727",
			`bytes=3145728-${bytes.byteLength - 1}`,
		]);
	});

	it("asks nothing more when the reader stops, and lets go of the answer it was reading", async () => {
		// One range of 24 MiB: more than loopback's socket buffers hold, so S3 (the proxy) is still
		// sending it when the reader stops, until the client drops the answer.
		const blobs = store({}, undefined, 24 * MIB);
		await blobs.put(
			"ranged/large",
			(async function* () {
				yield randomBytes(24 * MIB);
			})(),
		);
		s3.requests.length = 0;
		const reader = (await blobs.get("ranged/large"))!.getReader();
		await reader.read();
		expect(s3.answersInFlight()).toBe(1);
		await reader.cancel();
		await eventually(() => s3.answersInFlight() === 0, "the range answer was let go of");
		expect(gets()).toHaveLength(1);
	});

	it("resumes a body cut midway from the byte where it stopped", async () => {
		let cut = false;
		s3.fault = (method) => {
			if (method !== "GET" || cut) return null;
			cut = true;
			return { kind: "cut", afterBytes: 300_000 };
		};
		const read = Buffer.from(await new Response(await store().get("ranged/blob")).arrayBuffer());
		expect(read.equals(bytes)).toBe(true);
		const starts = gets().map((r) => Number(/bytes=(\d+)-/.exec(r)![1]));
		expect(starts[0]).toBe(0);
		expect(starts[1]).toBeGreaterThan(0);
		expect(starts[1]).toBeLessThanOrEqual(300_000);
	});

	it("errors the stream with 503 when the body keeps breaking without progress", async () => {
		s3.fault = (method) => (method === "GET" ? { kind: "cut", afterBytes: 0 } : null);
		const error = await new Response(await store().get("ranged/blob")).arrayBuffer().catch((e) => e);
		expect(isAs2Error(error) && error.code).toBe("SERVICE_UNAVAILABLE");
		expect(gets()).toHaveLength(3);
	});
});

describe("S3 blob store: kept-alive connections", () => {
	it("adds no listener per request to a connection it keeps alive", async () => {
		// Every socket the process opens to S3 (the proxy), seen from Node itself: the SDK's agent
		// keeps its own to itself.
		const port = Number(new URL(s3.endpoint).port);
		const toS3: Socket[] = [];
		const onSocket = (message: unknown) => {
			const { socket } = message as { socket: Socket };
			socket.once("connect", () => {
				if (socket.remotePort === port) toS3.push(socket);
			});
		};
		diagnostics.subscribe("net.client.socket", onSocket);
		try {
			const blobs = store();
			const round = async (i: number) => {
				await blobs.put(
					`kept-alive/${i}`,
					(async function* () {
						yield randomBytes(1000);
					})(),
				);
				await new Response(await blobs.get(`kept-alive/${i}`)).arrayBuffer();
				await blobs.stat(`kept-alive/${i}`);
				await blobs.delete(`kept-alive/${i}`);
				expect(await blobs.get(`kept-alive/missing-${i}`)).toBeNull();
			};
			const listeners = (socket: Socket) =>
				Object.fromEntries(socket.eventNames().map((name) => [String(name), socket.listenerCount(name)]));
			const open = () => toS3.filter((socket) => !socket.destroyed);
			await round(0);
			const [first] = open();
			if (!first) throw new Error("no connection to S3 was kept alive");
			const fresh = listeners(first);
			s3.requests.length = 0;
			for (let i = 1; i <= 15; i++) {
				await round(i);
				for (const socket of open()) expect(listeners(socket)).toEqual(fresh);
			}
			// The connections were reused: one carried more requests than a socket's default limit of
			// 10 listeners per event (a new one only if the proxy closed an idle one on a stalled machine).
			expect(s3.requests.length / toS3.length).toBeGreaterThan(10);
		} finally {
			diagnostics.unsubscribe("net.client.socket", onSocket);
		}
	});
});
