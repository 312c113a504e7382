/**
 * Issue #18, section 5: payloads through the S3 store in bounded memory. The built server with
 * `BLOB_URL` takes a large multipart upload into S3 and streams it back on download; its peak
 * resident set (VmHWM) must stay under 200 MB, and must not grow with the payload: the same
 * server, measured after a payload of SMALL and after one LARGE times bigger, grows by less
 * than a fraction of the difference. The full 1 GB runs in `npm run bench` (bench/s3-large.mjs):
 * here the sizes are kept small enough for the suite's time budget.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "../blackbox/built-server.ts";
import { BOUNDARY, setUpUploadWorld, type UploadWorld } from "../blackbox/upload-requests.ts";
import { type S3TestServer, s3Env, startS3Server } from "./s3-server.ts";

const MB = 1024 * 1024;
const SMALL = Number(process.env.S3_MEMORY_SMALL_MB ?? 48) * MB;
const LARGE = Number(process.env.S3_MEMORY_LARGE_MB ?? 192) * MB;

let s3: S3TestServer;
let server: BuiltServer;
let world: UploadWorld;

beforeAll(async () => {
	s3 = await startS3Server();
	server = await startBuiltServer({
		store: "sqlite",
		env: { ...(process.env.S3_MEMORY_FS ? {} : s3Env(s3, "memory")), AS2_DEFAULT_PLAN: "enterprise" },
	});
	world = await setUpUploadWorld(server);
});
afterAll(async () => {
	await server?.stop();
	await s3?.stop();
});

const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) / 1024;

/** A deterministic payload of `size` bytes, generated as it is sent (never whole in memory here either). */
function* payloadChunks(size: number): Generator<Buffer> {
	const chunk = Buffer.alloc(MB);
	for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
	for (let sent = 0; sent < size; sent += MB) yield sent + MB <= size ? chunk : chunk.subarray(0, size - sent);
}

const digest = (size: number) => {
	const hash = createHash("sha256");
	for (const chunk of payloadChunks(size)) hash.update(chunk);
	return hash.digest("hex");
};

/** POSTs a multipart message whose file part is `size` bytes, streamed; resolves with its id. */
function upload(size: number): Promise<string> {
	const head = Buffer.from(
		`--${BOUNDARY}\r\nContent-Disposition: form-data; name="partner_id"\r\n\r\n${world.partnerId}\r\n` +
			`--${BOUNDARY}\r\nContent-Disposition: form-data; name="content_type"\r\n\r\napplication/edi-x12\r\n` +
			`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="large.x12"\r\nContent-Type: application/octet-stream\r\n\r\n`,
	);
	const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
	return new Promise((resolve, reject) => {
		const req = request(
			`${server.base}/v1/messages`,
			{
				method: "POST",
				headers: {
					authorization: `Bearer ${world.token}`,
					"content-type": `multipart/form-data; boundary=${BOUNDARY}`,
					"content-length": String(head.length + size + tail.length),
				},
			},
			(res) => {
				let text = "";
				res.on("data", (c: Buffer) => {
					text += c.toString();
				});
				res.on("end", () =>
					res.statusCode === 202 ? resolve(JSON.parse(text).data.id) : reject(new Error(`${res.statusCode} ${text}`)),
				);
			},
		);
		req.on("error", reject);
		Readable.from(
			(function* () {
				yield head;
				yield* payloadChunks(size);
				yield tail;
			})(),
		).pipe(req);
	});
}

/** Downloads the payload of `id`, hashing it as it comes. */
async function downloadDigest(id: string): Promise<string> {
	const response = await fetch(`${server.base}/v1/messages/${id}/payload`, {
		headers: { authorization: `Bearer ${world.token}` },
	});
	expect(response.status).toBe(200);
	const hash = createHash("sha256");
	const reader = response.body!.getReader();
	for (let read = await reader.read(); !read.done; read = await reader.read()) hash.update(read.value);
	return hash.digest("hex");
}

describe("payloads through S3 in bounded memory", () => {
	it(`keeps the server under 200 MB, the same after ${LARGE / MB} MB as after ${SMALL / MB} MB`, async () => {
		const peaks: number[] = [];
		for (const size of [SMALL, LARGE]) {
			const started = performance.now();
			const id = await upload(size);
			expect(await downloadDigest(id)).toBe(digest(size));
			peaks.push(peakRssMb());
			console.log(
				`S3 memory: ${size / MB} MB up and down in ${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS ${peakRssMb().toFixed(0)} MB`,
			);
		}
		expect(peaks[1]).toBeLessThanOrEqual(200);
		// The payload grew by LARGE - SMALL (144 MB by default); the peak by a fraction of it at most.
		expect(peaks[1]! - peaks[0]!).toBeLessThan((LARGE - SMALL) / MB / 4);
	}, 240_000);
});
