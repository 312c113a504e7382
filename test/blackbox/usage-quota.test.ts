/**
 * The monthly live-message allowance (decisions.md, "Usage and billing events") against the
 * built server over real sockets: sends that arrive together at the edge of the allowance are
 * refused exactly past it, and each counted message is counted once. The account's month is
 * brought near its end by writing its counter in the server's database (a Professional month
 * is 100,000 messages). On SQLite the requests of one instance share one connection; on
 * PostgreSQL (blackbox-on-postgresql) they run in concurrent transactions. What one instance
 * does with requests that arrive together, not a proof for every interleaving: the allowance
 * is read before the transaction that counts (billing/usage.ts).
 */
import { connect, type Socket } from "node:net";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type QuirkyPartners, startQuirkyPartners } from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, liveTenant, plainPartner, type Registered } from "./clients.ts";

const PARTNER_AS2_ID = "bb-usage-quota-partner";
const ALLOWANCE = 100_000; // Professional
const LEFT = 4;
let server: BuiltServer;
let partners: QuirkyPartners;
let user: Registered;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	partners.answer(PARTNER_AS2_ID, () => ({ status: 200, body: "" }));
	server = await startBuiltServer({
		store: "sqlite",
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	({ user, liveKey } = await liveTenant(server.base));
	partnerId = await plainPartner(server.base, liveKey, { name: "quota", as2Id: PARTNER_AS2_ID, url: partners.url });
});
afterAll(async () => {
	await server?.stop();
	await partners?.close();
});

/** This month's and the next one's counter (a run across midnight of the month's end counts in either). */
const periods = () => {
	const now = new Date();
	const month = (offset: number) =>
		new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
	return [month(0), month(1)];
};

/** Runs statements written with `?` placeholders on the server's database, whichever store it is. */
async function query(statements: Array<[sql: string, ...params: unknown[]]>): Promise<Array<Record<string, unknown>>> {
	if (!server.databaseUrl.startsWith("postgres")) {
		const db = new Database(server.databaseUrl);
		try {
			db.pragma("busy_timeout = 10000");
			return statements.map(([sql, ...params]) => {
				const statement = db.prepare(sql);
				return (statement.reader ? statement.get(...params) : statement.run(...params)) as Record<string, unknown>;
			});
		} finally {
			db.close();
		}
	}
	const client = new pg.Client({ connectionString: server.databaseUrl });
	await client.connect();
	try {
		const rows = [];
		for (const [sql, ...params] of statements) {
			let n = 0;
			const numbered = sql.replace(/\?/g, () => `$${++n}`);
			rows.push((await client.query(numbered, params)).rows[0] ?? {});
		}
		return rows;
	} finally {
		await client.end();
	}
}

const body = (n: number) => ({
	partner_id: partnerId,
	content_type: "application/edi-x12",
	payload: { content: `ISA*00*QUOTA${n}~\r\n` },
});

/**
 * Sends arriving together: every connection is open and has written all of its request but the
 * last byte before any writes that byte, and those bytes are written in one loop. The server
 * then completes all the requests within one read of its sockets (a client's own pace would let
 * it answer one before the next arrives).
 */
async function sendTogether(requests: string[]): Promise<Array<{ status: number | null; code: string | null }>> {
	const sockets = await Promise.all(
		requests.map(
			() =>
				new Promise<Socket>((connected, failed) => {
					const socket = connect({ host: "127.0.0.1", port: server.port }, () => connected(socket));
					socket.once("error", failed);
				}),
		),
	);
	const answers = sockets.map(
		(socket) =>
			new Promise<string>((answered) => {
				const received: Buffer[] = [];
				socket.on("data", (chunk) => received.push(chunk));
				socket.on("error", () => {});
				socket.on("close", () => answered(Buffer.concat(received).toString("utf8")));
				socket.setTimeout(60_000, () => socket.destroy());
			}),
	);
	await Promise.all(
		sockets.map((socket, i) => new Promise((written) => socket.write(requests[i]!.slice(0, -1), written))),
	);
	for (const [i, socket] of sockets.entries()) socket.write(requests[i]!.slice(-1));
	return (await Promise.all(answers)).map((raw) => ({
		status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? Number.NaN) || null,
		code: /"code":"([A-Z_]+)"/.exec(raw)?.[1] ?? null,
	}));
}

it(`refuses exactly the sends past the allowance when 12 arrive together with ${LEFT} left (raw sockets)`, async () => {
	const seed = `insert into "usage_counters" ("account_id", "period", "metric", "value") values (?, ?, 'live_messages', ?)
		on conflict ("account_id", "period", "metric") do update set "value" = excluded."value"`;
	await query(periods().map((period) => [seed, user.accountId, period, ALLOWANCE - LEFT]));
	const requests = Array.from({ length: 12 }, (_, n) => {
		const json = JSON.stringify(body(n));
		return `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`;
	});
	const answers = await sendTogether(requests);
	const statuses = answers.map((a) => a.status).sort();
	expect(statuses).toEqual([...Array(LEFT).fill(202), ...Array(12 - LEFT).fill(402)]);
	for (const a of answers) if (a.status === 402) expect(a.code).toBe("MESSAGE_LIMIT_EXCEEDED");

	const [counted, stored, thresholds] = await query([
		[
			`select max("value") as "n" from "usage_counters" where "account_id" = ? and "metric" = 'live_messages'`,
			user.accountId,
		],
		[`select count(*) as "n" from "messages" where "account_id" = ? and "environment" = 'live'`, user.accountId],
		[
			`select count(*) as "n" from "events" where "account_id" = ? and "kind" = 'billing.usage_threshold'`,
			user.accountId,
		],
	]);
	expect(Number(counted!.n)).toBe(ALLOWANCE);
	expect(Number(stored!.n)).toBe(LEFT);
	// 75 and 90 % were crossed by the seeded count without a message: the first counted one fires
	// every threshold it reached (75, 90) and the one that uses the month up fires 100, once.
	expect(Number(thresholds!.n)).toBe(3);

	const after = await call(server.base, "POST", "/v1/messages", { token: liveKey, body: body(99) });
	expect(after.status).toBe(402);
	expect(after.json.error.code).toBe("MESSAGE_LIMIT_EXCEEDED");
});
