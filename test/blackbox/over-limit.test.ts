/**
 * Issue #16: a client that sent a complete over-limit body can read the 413 — whatever the
 * body's size. Partners' AS2 clients, curl, fetch and Java's HttpClient mostly write the whole
 * request before they read the answer; the server answers as soon as it knows (413, 401, 404),
 * with `Connection: close`, then reads and discards the rest of the body (bounded) and closes
 * with a FIN. Closing with unread bytes turns into a TCP reset, and the client gets EPIPE or
 * ECONNRESET instead of the answer: what @hono/node-server did past 64 MB or 500 ms.
 *
 * A client that sends `Expect: 100-continue` gets a refusal its headers decide instead of
 * 100 Continue, and never sends the body. A client that keeps trickling a body nobody wants is
 * cut off at the linger bound (AS2_LINGER_SECONDS).
 */
import { randomUUID } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { curl, healthLatency } from "./clients.ts";
import {
	ANSWERED_THEN_FIN,
	BOUNDARY,
	bulk,
	filesOf,
	outcome,
	requestFinished,
	requestHead,
	sendWholeThenRead,
	setUpUploadWorld,
	UPLOADS,
	type UploadWorld,
} from "./upload-requests.ts";

const MB = 1024 * 1024;
/** Four times the Free plan's 50 MB, and over the 64 MB @hono/node-server drained at most. */
const BODY_BYTES = 200 * MB;

let server: BuiltServer;
let world: UploadWorld;
let baseline: string[];
let scratch: string;
/** A sparse 200 MB file (no disk blocks), for curl to send. */
let bigFile: string;

beforeAll(async () => {
	server = await startBuiltServer();
	world = await setUpUploadWorld(server);
	baseline = filesOf(server);
	scratch = mkdtempSync(join(tmpdir(), "as2kit-blackbox-over-limit-"));
	bigFile = join(scratch, "big.x12");
	closeSync(openSync(bigFile, "w"));
	// truncate extends the empty file with a hole: 200 MB of zeros that take no disk space.
	truncateSync(bigFile, BODY_BYTES);
});
afterAll(async () => {
	rmSync(scratch, { recursive: true, force: true });
	await server.stop();
});

const as2Request = () => UPLOADS.find((u) => u.name === "POST /as2/receive (AS2 message)")!.build(world);

/** After the request: the server logged its answer (no 5xx), is up, and kept no file of it. */
async function expectCleanAfter(requestId: string, status: number): Promise<void> {
	expect(await requestFinished(server, requestId)).toBe(status);
	server.assertAlive();
	await healthLatency(server.base);
	expect(filesOf(server)).toEqual(baseline);
}

/** The head of a multipart message upload whose file part holds `fileBytes` bytes, and its tail. */
function messageFormAround(fileBytes: number): { head: Buffer; tail: Buffer; length: number } {
	const field = (name: string, value: string) =>
		`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
	const head = Buffer.from(
		field("partner_id", world.partnerId) +
			field("content_type", "application/edi-x12") +
			`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.x12"\r\nContent-Type: application/octet-stream\r\n\r\n`,
	);
	const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
	return { head, tail, length: head.byteLength + fileBytes + tail.byteLength };
}

describe("a client that writes a 200 MB body before reading anything reads the 413, then a FIN", () => {
	it("raw socket: POST /as2/receive with Content-Length 200 MB (Free plan: 71 MB), one pause of 1 s", async () => {
		const request = as2Request();
		const requestId = randomUUID();
		// The first half at once, then the second after a second (a slow disk, a busy link): as
		// long as a client on a real network takes, and longer than the 500 ms @hono/node-server
		// kept reading after an answer.
		async function* halves() {
			yield* bulk(BODY_BYTES / 2);
			await new Promise((r) => setTimeout(r, 1000));
			yield* bulk(BODY_BYTES / 2);
		}
		const sent = await sendWholeThenRead(
			server.port,
			requestHead(request, request.headers, BODY_BYTES, requestId),
			halves(),
		);
		expect(outcome(sent)).toEqual({ status: 413, ...ANSWERED_THEN_FIN });
		expect(sent.body).toMatch(/^the message exceeds \d+ bytes/);
		await expectCleanAfter(requestId, 413);
	});

	it("raw socket: POST /v1/messages, multipart, a 200 MB file with Content-Length (Free plan: 50 MB)", async () => {
		const form = messageFormAround(BODY_BYTES);
		const requestId = randomUUID();
		const head = requestHead(
			{ method: "POST", path: "/v1/messages" },
			{ authorization: `Bearer ${world.token}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
			form.length,
			requestId,
		);
		const sent = await sendWholeThenRead(server.port, head, [form.head, ...bulk(BODY_BYTES), form.tail]);
		expect(outcome(sent)).toEqual({ status: 413, ...ANSWERED_THEN_FIN });
		expect(JSON.parse(sent.body).error.code).toBe("PAYLOAD_TOO_LARGE");
		await expectCleanAfter(requestId, 413);
	});

	it("fetch: POST /v1/messages, multipart, a 200 MB file streamed chunked (refused as it crosses 50 MB)", async () => {
		const form = messageFormAround(BODY_BYTES);
		const pieces = [form.head, ...bulk(BODY_BYTES), form.tail][Symbol.iterator]();
		const body = new ReadableStream<Uint8Array>({
			pull(controller) {
				const next = pieces.next();
				if (next.done) controller.close();
				else controller.enqueue(next.value);
			},
		});
		const requestId = randomUUID();
		const response = await fetch(`${server.base}/v1/messages`, {
			method: "POST",
			headers: {
				authorization: `Bearer ${world.token}`,
				"content-type": `multipart/form-data; boundary=${BOUNDARY}`,
				"x-request-id": requestId,
			},
			body,
			// @ts-expect-error Node's fetch needs duplex for a streamed request body
			duplex: "half",
			signal: AbortSignal.timeout(60_000),
		});
		expect(response.status).toBe(413);
		expect(response.headers.get("connection")).toBe("close");
		expect((await response.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
		await expectCleanAfter(requestId, 413);
	});

	it("curl -T: POST /as2/receive with a 200 MB file, no Expect", async () => {
		const request = as2Request();
		const requestId = randomUUID();
		const headers = Object.entries({ ...request.headers, "x-request-id": requestId, expect: "" });
		const run = await curl([
			...["-X", "POST", "-T", bigFile, "-o", "-", "-w", "\\n%{http_code}"],
			...headers.flatMap(([name, value]) => ["-H", `${name}:${value === "" ? "" : ` ${value}`}`]),
			`${server.base}/as2/receive`,
		]);
		expect(run.code, run.stdout).toBe(0);
		const lines = run.stdout.trimEnd().split("\n");
		expect(Number(lines.pop())).toBe(413);
		expect(lines.join("\n")).toMatch(/^the message exceeds \d+ bytes/);
		await expectCleanAfter(requestId, 413);
	});
});

describe("Expect: 100-continue: a refusal the headers decide comes instead of 100 Continue", () => {
	/**
	 * curl with `Expect: 100-continue`, waiting up to 60 s for 100 Continue before it sends the
	 * body anyway. Returns the final status, whether a 100 Continue came first (from the headers
	 * curl dumps), and how many body bytes curl sent (`size_upload`).
	 */
	const curlExpecting = async (url: string, headers: Record<string, string>, upload: string[]) => {
		const run = await curl([
			...["-o", "/dev/null", "-D", "-", "-w", "\n%{http_code} %{size_upload}", "--expect100-timeout", "60"],
			...Object.entries({ ...headers, expect: "100-continue" }).flatMap(([n, v]) => ["-H", `${n}: ${v}`]),
			...upload,
			url,
		]);
		expect(run.code, run.stdout).toBe(0);
		const lines = run.stdout.trimEnd().split("\n");
		const [status, uploaded] = lines.pop()!.split(" ").map(Number);
		return { status, continued: /^HTTP\/1\.1 100 /m.test(lines.join("\n")), uploaded };
	};
	const as2 = (headers: Record<string, string>, file: string) =>
		curlExpecting(`${server.base}/as2/receive`, headers, ["-X", "POST", "-T", file]);
	const form = (token: string, file: string) =>
		curlExpecting(`${server.base}/v1/messages`, { authorization: `Bearer ${token}` }, [
			...["-F", `partner_id=${world.partnerId}`, "-F", "content_type=application/edi-x12"],
			...["-F", `file=@${file}`],
		]);

	it("POST /as2/receive over the plan's size: 413, and not one byte of the body sent", async () => {
		expect(await as2(as2Request().headers, bigFile)).toEqual({ status: 413, continued: false, uploaded: 0 });
	});

	it("POST /as2/receive to an unknown AS2-To: 404, and not one byte of the body sent", async () => {
		expect(await as2(as2Request().refusedHeaders, bigFile)).toEqual({ status: 404, continued: false, uploaded: 0 });
	});

	it("POST /v1/messages (curl -F) with a bad API key: 401, and not one byte of the body sent", async () => {
		expect(await form("not-a-key", bigFile)).toEqual({ status: 401, continued: false, uploaded: 0 });
	});

	it("POST /v1/messages (curl -F) with a file over the plan's size: 413, and not one byte of the body sent", async () => {
		expect(await form(world.token, bigFile)).toEqual({ status: 413, continued: false, uploaded: 0 });
	});

	it("an upload the server takes gets 100 Continue and is sent whole", async () => {
		const small = join(scratch, "small.x12");
		writeFileSync(small, Buffer.alloc(2 * MB, 0x41));
		expect(await as2(as2Request().headers, small)).toEqual({ status: 200, continued: true, uploaded: 2 * MB });
		const posted = await form(world.token, small);
		expect(posted.status).toBe(202);
		expect(posted.continued).toBe(true);
		expect(posted.uploaded).toBeGreaterThan(2 * MB);
	});
});

describe("a client that trickles an unwanted body is cut off at the linger bound", () => {
	const LINGER_SECONDS = 2;
	let lingering: BuiltServer;
	let lingeringWorld: UploadWorld;
	beforeAll(async () => {
		lingering = await startBuiltServer({ env: { AS2_LINGER_SECONDS: String(LINGER_SECONDS) } });
		lingeringWorld = await setUpUploadWorld(lingering);
	});
	afterAll(() => lingering.stop());

	/**
	 * Announces a 2 GB AS2 message, then writes 16 KiB every `pauseMs` (never, with null) until
	 * the server ends the connection; resolves with the status read and the seconds from the
	 * answer to the end. Gives up (null seconds) after 30 s.
	 */
	const trickle = (pauseMs: number | null) =>
		new Promise<{ status: number | null; secondsAfterAnswer: number | null }>((resolve) => {
			const request = UPLOADS.find((u) => u.name === "POST /as2/receive (AS2 message)")!.build(lingeringWorld);
			const socket = connect({ host: "127.0.0.1", port: lingering.port });
			let received = "";
			let answeredAt: number | null = null;
			let writer: NodeJS.Timeout | undefined;
			const finish = (closed: boolean) => {
				clearTimeout(giveUp);
				clearInterval(writer);
				socket.destroy();
				const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
				resolve({
					status: status ? Number(status[1]) : null,
					secondsAfterAnswer: closed && answeredAt !== null ? (performance.now() - answeredAt) / 1000 : null,
				});
			};
			const giveUp = setTimeout(() => finish(false), 30_000);
			socket.on("data", (chunk: Buffer) => {
				received += chunk.toString("latin1");
				answeredAt ??= performance.now();
			});
			socket.on("end", () => finish(true));
			socket.on("error", () => finish(true));
			socket.once("connect", () => {
				socket.write(requestHead(request, request.headers, 2 * 1024 * MB, randomUUID()));
				const piece = Buffer.alloc(16 * 1024, 0x41);
				if (pauseMs !== null) writer = setInterval(() => socket.write(piece), pauseMs);
			});
		});

	it("one that keeps sending 16 KiB every 50 ms is closed within the bound after the 413", async () => {
		const { status, secondsAfterAnswer } = await trickle(50);
		expect(status).toBe(413);
		expect(secondsAfterAnswer).not.toBeNull();
		// The bound is 2 s; 10 s leaves a loaded machine room, and a connection held for the
		// 2 GB (or the server's 15-minute request timeout) is far beyond it.
		expect(secondsAfterAnswer!).toBeLessThan(LINGER_SECONDS + 8);
		await healthLatency(lingering.base);
	});

	it("one that goes silent after the headers is closed within the bound after the 413", async () => {
		const { status, secondsAfterAnswer } = await trickle(null);
		expect(status).toBe(413);
		expect(secondsAfterAnswer).not.toBeNull();
		expect(secondsAfterAnswer!).toBeLessThan(LINGER_SECONDS + 8);
	});
});
