/**
 * Statements run without Describe (undescribed-query.ts): their rows decode to what drizzle
 * reads (whole rows) or what the port's contract says (short answers: the conformance suite
 * checks each value's type), no Describe goes out, and a failure is the statement's error, on a pooled connection
 * and in a pipelined transaction alike.
 */
import type { As2Store, MessageRecord } from "@as2kit/core/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { message } from "../../../test/storage/suites/messages.ts";
import { PgConnection } from "./connection.ts";
import { createPgStore } from "./create-store.ts";
import { rawTable } from "./repositories/pg-raw-table.ts";
import { messages } from "./schema.ts";

/** The test PostgreSQL's maintenance URL (test/pg/global-setup.ts); null only outside CI without one. */
const url = inject("pgUrl");

const T0 = new Date("2026-01-01T00:00:00.123Z");
const later = new Date("2026-03-04T05:06:07.089Z");

/** Every nullable column set, a byte count past 2^31, booleans of both values, JSON of each shape. */
const full: MessageRecord = message("msg_000001", {
	messageId: "<full@as2kit.example>",
	partnerName: 'Partner, "quoted" and ünïcode',
	status: "sent",
	subject: "Order\nwith a line break",
	filename: "order.edi",
	bytes: 3_000_000_000,
	compressed: true,
	encrypted: false,
	signed: true,
	mdnMode: "async",
	mdnStatus: "pending",
	mdnData: { disposition: "automatic-action/MDN-sent-automatically; processed", mic: "abc=, sha-256" } as never,
	rejectedMdns: [{ at: "2026-01-01T00:00:00.000Z", reason: "signature" }] as never,
	mic: "abc=, sha-256",
	priority: "high",
	headers: { "as2-version": "1.2", "x-empty": "" },
	payloadKey: "payloads/msg_000001",
	scheduledAt: later,
	attempts: 2,
	lastAttemptAt: later,
	sentAt: later,
	deliveredAt: later,
	failedAt: later,
	mdnDeadline: later,
	errorCode: "E_TEST",
	errorMessage: "an error",
	transmissionTimeMs: 1234,
	details: { nested: { list: [1, "two", null, true] }, text: 'a "string"' },
	createdAt: T0,
	updatedAt: T0,
});
/** Every nullable column null. */
const bare: MessageRecord = {
	...full,
	id: "msg_000002",
	messageId: "<bare@as2kit.example>",
	status: "queued",
	subject: null,
	filename: null,
	bytes: 0,
	compressed: false,
	encrypted: true,
	signed: false,
	mdnData: null,
	rejectedMdns: [],
	mic: null,
	headers: {},
	payloadKey: null,
	scheduledAt: null,
	attempts: 0,
	lastAttemptAt: null,
	sentAt: null,
	deliveredAt: null,
	failedAt: null,
	mdnDeadline: null,
	errorCode: null,
	errorMessage: null,
	transmissionTimeMs: null,
	details: {},
};

describe.skipIf(url === null)("statements without Describe", () => {
	const name = `as2kit_undescribed_${process.pid}`;
	let store: As2Store;
	let pool: pg.Pool;

	async function admin(sql: string): Promise<void> {
		const client = new pg.Client({ connectionString: url ?? "" });
		await client.connect();
		try {
			await client.query(sql);
		} finally {
			await client.end();
		}
	}

	beforeAll(async () => {
		await admin(`create database ${name} template as2kit_template`);
		const databaseUrl = new URL(url ?? "");
		databaseUrl.pathname = `/${name}`;
		store = await createPgStore({ url: databaseUrl.toString(), poolSize: 2 });
		pool = new pg.Pool({ connectionString: url ?? "", max: 1, pipeline: true });
	});
	afterAll(async () => {
		await store?.close();
		await pool?.end();
		await admin(`drop database if exists ${name} with (force)`);
	});

	it("reads a message as drizzle does, every column type, set and null; sends no Describe", async () => {
		await store.messages.create(full);
		await store.messages.create(bare);
		const describe = vi.spyOn(pg.Connection.prototype, "describe");
		try {
			// get, transition and a claim's joined message are read without Describe ...
			const read = [await store.messages.get("tnt_000001", full.id), await store.messages.getById(bare.id)];
			expect(describe).not.toHaveBeenCalled();
			// ... findByMessageId through drizzle, which describes its result.
			const byDrizzle = [
				await store.messages.findByMessageId("tnt_000001", full.messageId, { direction: "outbound" }),
				await store.messages.findByMessageId("tnt_000001", bare.messageId, { direction: "outbound" }),
			];
			expect(describe).toHaveBeenCalled();
			expect(read).toEqual([full, bare]);
			expect(read).toEqual(byDrizzle);
			expect(read[0]?.createdAt).toBeInstanceOf(Date);
		} finally {
			describe.mockRestore();
		}
		const moved = await store.messages.transition(bare.id, ["queued"], { status: "processing", updatedAt: later });
		expect(moved).toEqual({ ...bare, status: "processing", updatedAt: later });
		expect(await store.messages.transition(bare.id, ["queued"], { status: "failed", updatedAt: later })).toBeNull();
		await store.jobs.enqueue({ kind: "send", payload: { messageId: full.id }, runAt: T0 }, T0);
		const [claimed] = await store.jobs.claim({
			workerId: "w1",
			leaseMs: 1000,
			limit: 1,
			now: later,
			withMessage: ["send"],
		});
		expect(claimed?.message).toEqual(full);
		expect(claimed).toMatchObject({ kind: "send", payload: { messageId: full.id }, attempts: 1, runAt: T0 });
	});

	it("sends no Describe for a message's short answers: new ids, usage totals, the fan-out flag, a job's completion, inserts", async () => {
		const describe = vi.spyOn(pg.Connection.prototype, "describe");
		try {
			// The first test stored msg_000001 and msg_000002 under their own ids: the sequence steps past them.
			const taken = [await store.ids.next("msg_"), await store.ids.next("msg_")];
			const { id: _id, ...fields } = bare;
			const id = await store.messages.createNew({ ...fields, messageId: "<new@as2kit.example>" });
			const counted = await store.transaction((tx) =>
				Promise.all([
					tx.usage.incrementMany({ accountId: "acc_000001", period: "2026-01", by: { live: 1, bytes: 3_000_000_000 } }),
					tx.usage.increment({ accountId: "acc_000001", period: "2026-01", metric: "live", by: 2 }),
					tx.events.appendNewWithFanOut(
						{ accountId: "acc_000001", tenantId: null, kind: "k", data: {}, environment: "live", createdAt: T0 },
						{ kind: "webhook.fan-out", runAt: T0 },
					),
					tx.events.appendNew({
						accountId: "acc_000001",
						tenantId: null,
						kind: "k",
						data: {},
						environment: "live",
						createdAt: T0,
					}),
					tx.ids.next("prt_"),
				]),
			);
			const job = await store.jobs.enqueueClaimed({ kind: "send", payload: {}, key: "send:x", runAt: T0 }, T0, {
				workerId: "w1",
				lockedUntil: later,
			});
			const settled = [
				await store.jobs.complete(job!.id, "w2"),
				await store.jobs.complete(job!.id, "w1"),
				await store.jobs.cancelByKey("send:x", T0),
			];
			expect(describe).not.toHaveBeenCalled();
			expect([...taken, id]).toEqual(["msg_000001", "msg_000002", "msg_000003"]);
			expect(counted).toEqual([
				{ live: 1, bytes: 3_000_000_000 },
				3,
				{ id: expect.stringMatching(/^evt_[0-9]{6}$/), fanOut: false },
				expect.stringMatching(/^evt_[0-9]{6}$/),
				"prt_000001",
			]);
			expect(settled).toEqual([false, true, "none"]);
		} finally {
			describe.mockRestore();
		}
	});

	it("fails with the statement's error and leaves the connection usable", async () => {
		const connection = new PgConnection(pool);
		const first = (row: readonly (string | null)[]) => row[0];
		await expect(connection.root.query("select 1 / $1::int", [0], first)).rejects.toMatchObject({ code: "22012" });
		expect(await connection.root.query("select $1::int + 1", [1], first)).toEqual(["2"]);
		// In a transaction, statements sent together: the first failure is the transaction's.
		await expect(
			connection.transaction((runner) =>
				Promise.all([runner.query("select 1 / $1::int", [0], first), runner.query("select $1::int + 1", [1], first)]),
			),
		).rejects.toMatchObject({ code: "22012" });
		expect(await connection.transaction((runner) => runner.query("select $1::text", ["x"], first))).toEqual(["x"]);
		// A parameter node-postgres cannot write fails before anything is sent.
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		await expect(connection.root.query("select $1::json", [cyclic], first)).rejects.toThrow();
		expect(await connection.root.query("select 'still usable'", [], first)).toEqual(["still usable"]);
	});

	it("refuses a row narrower than the columns it decodes", () => {
		expect(() => rawTable(messages).fromText(["msg_000001"])).toThrow(/a row of 1 columns, not 41/);
	});
});
