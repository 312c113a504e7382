/**
 * Issue #18, section 5: the built server with `BLOB_URL=s3://bucket/prefix` keeps payloads in
 * a real S3-compatible server (s3rver behind the fault proxy of test/s3/s3-server.ts) and none
 * in BLOB_DIR — uploaded by curl and fetch, downloaded whole, cut short by hostile clients, and
 * with S3 refusing or gone — and loads the AWS SDK only when BLOB_URL is set.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type S3TestServer, s3Env, startS3Server } from "../s3/s3-server.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, healthLatency } from "./clients.ts";
import {
	messageForm,
	payload,
	requestFinished,
	requestHead,
	sendAndEnd,
	setUpUploadWorld,
	type UploadWorld,
} from "./upload-requests.ts";

const MB = 1_000_000;
const PREFIX = "blackbox";
const SECRET = "s3-secret-never-in-a-log-7c1e";
const REPORT_SDK = join(import.meta.dirname, "../s3/report-aws-sdk.cjs");

let s3: S3TestServer;
let server: BuiltServer;
let world: UploadWorld;
let scratch: string;

beforeAll(async () => {
	s3 = await startS3Server();
	server = await startBuiltServer({ env: { ...s3Env(s3, PREFIX, SECRET), AS2_DEFAULT_PLAN: "enterprise" } });
	world = await setUpUploadWorld(server);
	scratch = mkdtempSync(join(tmpdir(), "as2kit-blackbox-s3-"));
});
afterAll(async () => {
	rmSync(scratch, { recursive: true, force: true });
	await server?.stop();
	await s3?.stop();
});

const objects = () => s3.objectKeys().filter((key) => key.startsWith(`${PREFIX}/`));

/** The payload of message `id` as curl downloads it. */
async function curlPayload(id: string): Promise<Buffer> {
	const path = join(scratch, `${id}.download`);
	const run = await curl([
		"-o",
		path,
		"-H",
		`Authorization: Bearer ${world.token}`,
		`${server.base}/v1/messages/${id}/payload`,
	]);
	expect(run.code).toBe(0);
	const bytes = readFileSync(path);
	rmSync(path);
	return bytes;
}

async function fetchPayload(id: string): Promise<Buffer> {
	const response = await fetch(`${server.base}/v1/messages/${id}/payload`, {
		headers: { authorization: `Bearer ${world.token}` },
	});
	expect(response.status).toBe(200);
	return Buffer.from(await response.arrayBuffer());
}

/** A client that reads the answer's head and `bytes` of its body, then resets: one that gave up. */
function readSomeThenLeave(port: number, head: string, bytes: number): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: "127.0.0.1", port });
		let received = Buffer.alloc(0);
		const timer = setTimeout(() => {
			socket.destroy();
			reject(new Error(`only ${received.byteLength} bytes within 30 s`));
		}, 30_000);
		socket.on("error", () => {});
		socket.on("data", (chunk: Buffer) => {
			received = Buffer.concat([received, chunk]);
			if (received.byteLength < bytes) return;
			clearTimeout(timer);
			socket.resetAndDestroy();
			resolve(received.subarray(0, 64).toString("latin1"));
		});
		socket.write(head);
	});
}

describe("payloads in S3 (BLOB_URL)", () => {
	it("curl -F and fetch uploads land in the bucket under the prefix, none in BLOB_DIR, and come back whole", async () => {
		// 12 MB: a multipart upload of two parts, read back by two ranges.
		const bytes = payload(12 * MB);
		const file = join(scratch, "order.x12");
		writeFileSync(file, bytes);
		const before = objects().length;

		const curled = await curl([
			...["-o", "-", "-H", `Authorization: Bearer ${world.token}`],
			...["-F", `partner_id=${world.partnerId}`, "-F", "content_type=application/edi-x12", "-F", `file=@${file}`],
			`${server.base}/v1/messages`,
		]);
		expect(curled.code).toBe(0);
		const viaCurl = JSON.parse(curled.stdout).data.id as string;

		const form = new FormData();
		form.set("partner_id", world.partnerId);
		form.set("content_type", "application/edi-x12");
		form.set("file", new Blob([Buffer.from(bytes)]), "order.x12");
		const fetched = await fetch(`${server.base}/v1/messages`, {
			method: "POST",
			headers: { authorization: `Bearer ${world.token}` },
			body: form,
		});
		expect(fetched.status).toBe(202);
		const viaFetch = ((await fetched.json()) as { data: { id: string } }).data.id;

		for (const id of [viaCurl, viaFetch]) {
			expect((await curlPayload(id)).equals(bytes)).toBe(true);
			expect((await fetchPayload(id)).equals(bytes)).toBe(true);
		}
		expect(objects().length).toBeGreaterThanOrEqual(before + 2);
		expect(s3.openUploads()).toEqual([]);
		expect(existsSync(join(server.dir, "blobs"))).toBe(false);
	});

	it("an upload reset or closed midway leaves no object and no parts in S3, and the server serves on", async () => {
		const body = messageForm(world, 20 * MB);
		for (const ending of ["reset", "close"] as const) {
			const before = objects();
			const requestId = `s3-cut-${ending}-${randomUUID()}`;
			const head = requestHead(
				{ method: "POST", path: "/v1/messages" },
				{
					authorization: `Bearer ${world.token}`,
					"content-type": "multipart/form-data; boundary=----as2kit-blackbox-boundary",
				},
				body.byteLength,
				requestId,
			);
			// Past the first 5 MiB parts, so a multipart upload is under way when the client goes.
			await sendAndEnd(server.port, head, [body.subarray(0, 12 * MB)], ending);
			await requestFinished(server, requestId);
			// The abort of the multipart upload may still be on its way to S3 when the access log
			// line is written: wait for it (bounded), rather than for a scheduling window.
			for (const deadline = Date.now() + 30_000; s3.openUploads().length > 0 && Date.now() < deadline; ) {
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			expect(s3.openUploads()).toEqual([]);
			expect(objects()).toEqual(before);
		}
		await healthLatency(server.base);
	});

	it("a download the client leaves early lets go of S3's answer", async () => {
		const submitted = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: messageForm(world, 20 * MB),
			headers: { "content-type": "multipart/form-data; boundary=----as2kit-blackbox-boundary" },
		});
		expect(submitted.status).toBe(202);
		const id = submitted.json.data.id as string;
		const head = `GET /v1/messages/${id}/payload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${world.token}\r\n\r\n`;
		const answer = await readSomeThenLeave(server.port, head, 256 * 1024);
		expect(answer).toMatch(/^HTTP\/1\.1 200/);
		for (const deadline = Date.now() + 15_000; s3.answersInFlight() > 0 && Date.now() < deadline; ) {
			await new Promise((r) => setTimeout(r, 25));
		}
		expect(s3.answersInFlight()).toBe(0);
		await healthLatency(server.base);
	});

	it("S3 refusing: 503 SERVICE_UNAVAILABLE, a log line naming S3's error and no secret; back to normal after", async () => {
		s3.fault = () => ({ kind: "error" });
		try {
			for (const [what, options] of [
				[
					"JSON",
					{
						body: {
							partner_id: world.partnerId,
							content_type: "application/edi-x12",
							payload: { content: "ISA*00*~", filename: "order.x12" },
						},
					},
				],
				[
					"multipart",
					{
						body: messageForm(world, 2 * MB),
						headers: { "content-type": "multipart/form-data; boundary=----as2kit-blackbox-boundary" },
					},
				],
			] as const) {
				const refused = await call(server.base, "POST", "/v1/messages", { token: world.token, ...options });
				expect(refused.status, what).toBe(503);
				expect(refused.json.error.code).toBe("SERVICE_UNAVAILABLE");
				expect(refused.json.message).toMatch(/payload store/);
				expect(refused.text).not.toMatch(/InternalError|amazonaws|x-amz/i);
			}
			expect(server.output()).toMatch(/InternalError \(HTTP 500\)/);
		} finally {
			s3.fault = null;
		}
		expect(server.output()).not.toContain(SECRET);
		const again = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: {
				partner_id: world.partnerId,
				content_type: "application/edi-x12",
				payload: { content: "ISA*00*~", filename: "order.x12" },
			},
		});
		expect(again.status).toBe(202);
	});
});

describe("the AWS SDK is loaded only for BLOB_URL", () => {
	for (const withS3 of [false, true]) {
		it(`${withS3 ? "with" : "without"} BLOB_URL: loaded=${withS3}`, async () => {
			const other = await startBuiltServer({
				env: { NODE_OPTIONS: `--require ${REPORT_SDK}`, ...(withS3 ? s3Env(s3, "sdk-probe") : {}) },
			});
			await healthLatency(other.base);
			await other.stop();
			expect(other.output()).toContain(`aws-sdk-loaded=${withS3}`);
		});
	}
});
