/**
 * SQLite group commit (issue #20, "SQLite group commit (stop 28)" in
 * docs/performance-storage.md) against the built server over real sockets: the submissions of
 * a burst share commits, yet a client is answered only once its message is committed. A read
 * right after the answer, on another connection, finds the message; a SIGKILL the moment the
 * last answer arrives loses none of them; aborted and malformed clients among them leave
 * nothing behind. SQLite only (vitest.config.ts leaves it out of blackbox-on-postgresql): it
 * reads the database file the killed process left.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type QuirkyPartners, startQuirkyPartners } from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, liveTenant, plainPartner, rawRequest } from "./clients.ts";

const PARTNER_AS2_ID = "bb-group-commit-partner";
let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	partners.answer(PARTNER_AS2_ID, () => ({ status: 200, body: "" }));
	server = await startBuiltServer({
		store: "sqlite",
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	({ liveKey } = await liveTenant(server.base));
	partnerId = await plainPartner(server.base, liveKey, { name: "grouped", as2Id: PARTNER_AS2_ID, url: partners.url });
});
afterAll(async () => {
	// The test kills the server itself: stop() then only removes its directory, and says so.
	await server?.stop().catch((error: Error) => {
		if (!/exited before stop/.test(error.message)) throw error;
	});
	await partners?.close();
});

const messageBody = (n: number) =>
	JSON.stringify({
		partner_id: partnerId,
		content_type: "application/edi-x12",
		payload: { content: `ISA*00*GROUPED${n}~\r\n` },
	});

/** Submits over fetch, then reads the message back at once on a connection of its own. */
const viaFetch = async (n: number): Promise<string> => {
	const sent = await call(server.base, "POST", "/v1/messages", { token: liveKey, body: JSON.parse(messageBody(n)) });
	expect(sent.status, sent.text).toBe(202);
	const read = await call(server.base, "GET", `/v1/messages/${sent.json.data.id}`, { token: liveKey });
	expect(read.status, read.text).toBe(200);
	return sent.json.data.id;
};
const viaCurl = async (n: number): Promise<string> => {
	const { stdout, code } = await curl([
		"-X",
		"POST",
		"-H",
		`authorization: Bearer ${liveKey}`,
		"-H",
		"content-type: application/json",
		"--data-binary",
		messageBody(n),
		`${server.base}/v1/messages`,
	]);
	expect(code, stdout).toBe(0);
	return JSON.parse(stdout).data.id;
};
const head = (length: number) =>
	`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
const viaSocket = async (n: number): Promise<string> => {
	const body = messageBody(n);
	const response = await rawRequest(server.port, head(Buffer.byteLength(body)), [body]);
	expect(response.status, response.raw).toBe(202);
	return JSON.parse(response.raw.slice(response.raw.indexOf("\r\n\r\n") + 4)).data.id;
};

it("keeps every answered submission of a burst across a SIGKILL at the last answer, and nothing of aborted ones", async () => {
	const aborted = messageBody(900);
	const [ids, hostile] = await Promise.all([
		Promise.all([
			...Array.from({ length: 24 }, (_, n) => viaFetch(n)),
			...Array.from({ length: 2 }, (_, n) => viaCurl(100 + n)),
			...Array.from({ length: 4 }, (_, n) => viaSocket(200 + n)),
		]),
		Promise.all([
			// Reset mid-body, and malformed JSON: neither is answered 202, so neither may be kept.
			...Array.from({ length: 4 }, () =>
				rawRequest(server.port, head(aborted.length), [aborted.slice(0, 30)], { resetAfterWrite: true }),
			),
			rawRequest(server.port, head(9), ["{not json"]),
		]),
	]);
	process.kill(server.pid, "SIGKILL");
	await waitForExit();
	expect(hostile.at(-1)?.status).toBe(400);

	const db = new Database(join(server.dir, "as2.sqlite"));
	try {
		const kept = db.prepare("select id from messages").pluck().all() as string[];
		expect(kept.sort()).toEqual([...ids].sort());
	} finally {
		db.close();
	}
});

/** Bounded (10 s): the killed process is gone once the harness saw its exit. */
async function waitForExit(): Promise<void> {
	for (let i = 0; i < 200 && server.exit() === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
	expect(server.exit()).toEqual({ code: null, signal: "SIGKILL" });
}
