/**
 * Issue #16, defects 2 and 11, for `POST /v1/epcis/validate`: the worst single event at
 * `maxEventLength` (8 MB, seconds of CPU) is validated on the server's pool of worker threads
 * while `/health` keeps answering (hostile-input-health.ts), and validations beyond the pool's
 * places and queue are refused at once with 503 and Retry-After. On SQLite only
 * (vitest.config.ts): a validation writes nothing to the store, which only checks the token.
 * The inbound path, which stores the event, is epcis-load.test.ts', on both stores.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, type Registered, register } from "./clients.ts";
import {
	EPCIS_LOAD_ENV,
	GIVE_UP_MS,
	HANG_MS,
	MAX_EVENT_LENGTH,
	SMALL_DOCUMENT,
	WORST_TO_VALIDATE,
} from "./epcis-load-documents.ts";
import { expectHealthy, watchHealth } from "./hostile-input-health.ts";

let server: BuiltServer;
let user: Registered;

beforeAll(async () => {
	server = await startBuiltServer({ env: EPCIS_LOAD_ENV });
	user = await register(server.base);
});
afterAll(() => server?.stop());

describe("EPCIS work never holds the event loop", () => {
	it("validates the worst single event at maxEventLength while /health keeps answering", {
		timeout: HANG_MS,
	}, async () => {
		const document = WORST_TO_VALIDATE("ev:validate");
		expect(document.length).toBeGreaterThan(MAX_EVENT_LENGTH - 2048);
		const health = await watchHealth(server.base);
		const answer = await call(server.base, "POST", "/v1/epcis/validate", {
			token: user.token,
			body: { document, validation_rules: ["schema_compliance", "business_rules"] },
			timeoutMs: GIVE_UP_MS,
		});
		const summary = await health.stop();
		expect(answer.status, answer.text.slice(0, 300)).toBe(200);
		// Read whole and judged: the one-letter EPCs are not EPC URIs, and nothing else is wrong.
		expect(answer.json, JSON.stringify(answer.json.errors).slice(0, 500)).toMatchObject({
			epcis_version: "1.2",
			event_count: 1,
		});
		expect(answer.json.errors.map((e: { code: string }) => e.code)).toContain("BR_INVALID_EPC");
		expectHealthy(summary, "an 8 MB event on /v1/epcis/validate");
		server.assertAlive();
	});
});

describe("EPCIS work at once is bounded", () => {
	const boundary = "epcis-load-boundary";
	const document = SMALL_DOCUMENT.slice(0, 300);
	const head = (length: number) =>
		[
			"POST /v1/epcis/validate HTTP/1.1",
			"Host: 127.0.0.1",
			`Authorization: Bearer ${user.token}`,
			`Content-Type: multipart/form-data; boundary=${boundary}`,
			`Content-Length: ${length}`,
			"Connection: close",
			"",
			"",
		].join("\r\n");
	const partHead = `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="events.xml"\r\nContent-Type: application/xml\r\n\r\n`;

	it("answers 503 with Retry-After past the pool's places, and serves again once they are free", {
		timeout: HANG_MS,
	}, async () => {
		// Three uploads that send the start of a document and then wait, for two places: two hold
		// them until released, the third is refused at once and told when to come back.
		const first = partHead + document;
		const rest = `${SMALL_DOCUMENT.slice(300)}\r\n--${boundary}--\r\n`;
		const held = [0, 1, 2].map(() => heldUpload(server.port, head(Buffer.byteLength(first + rest)), first, rest));
		let refused: { status: number | null; raw: string };
		try {
			refused = await Promise.race(held.map((upload) => upload.answer));
		} finally {
			for (const upload of held) upload.release();
		}
		expect(refused.status, refused.raw.slice(0, 300)).toBe(503);
		expect(refused.raw).toMatch(/\r\nretry-after: 2\r\n/i);
		expect(refused.raw).toContain('"code":"SERVICE_UNAVAILABLE"');
		const answers = await Promise.all(held.map((upload) => upload.answer));
		expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 503]);
		const after = await call(server.base, "POST", "/v1/epcis/validate", {
			token: user.token,
			body: { document: SMALL_DOCUMENT },
		});
		expect(after.status, after.text).toBe(200);
		expect(after.json.event_count).toBe(1);
		server.assertAlive();
	});
});

/**
 * A request over a raw socket that sends `head` and `first`, then waits for `release()` to send
 * `rest`; `answer` is what the server sent back once it closed the connection (bounded wait).
 */
function heldUpload(port: number, head: string, first: string, rest: string) {
	let release = () => {};
	const released = new Promise<void>((resolve) => (release = resolve));
	const answer = new Promise<{ status: number | null; raw: string }>((resolve) => {
		const socket = connect({ host: "127.0.0.1", port });
		const received: Buffer[] = [];
		const timer = setTimeout(() => socket.destroy(), GIVE_UP_MS);
		const done = () => {
			clearTimeout(timer);
			const raw = Buffer.concat(received).toString("latin1");
			resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]) || null, raw });
		};
		socket.on("data", (chunk) => received.push(chunk));
		socket.on("error", done);
		socket.on("close", done);
		socket.on("connect", () => {
			socket.write(head + first);
			void released.then(() => socket.write(rest));
		});
	});
	return { release, answer };
}
