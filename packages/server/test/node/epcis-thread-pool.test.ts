import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { As2Error, EPCIS_RULES, type EpcisValidationResult } from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import { afterEach, describe, expect, it } from "vitest";
import {
	createEpcisThreadPool,
	type EpcisThreadPool,
	type EpcisThreadPoolOptions,
} from "../../src/node/epcis-thread-pool.ts";
import { createInThreadEpcisEngine } from "../../src/service/epcis/epcis-engine.ts";
import { DOCUMENT_20, manyEvents } from "../helpers/epcis-documents.ts";
import { eventually } from "../helpers/worker.ts";

/**
 * The EPCIS thread pool (issue #16): off the event loop, bounded in threads, places and
 * queue, each task held to a time budget and its thread to a heap; a thread that dies is
 * replaced and its tasks fail cleanly. The threads run the TypeScript sources through tsx
 * (helpers/epcis-thread-entry.mjs).
 */
const REAL_THREAD = new URL("../helpers/epcis-thread-entry.mjs", import.meta.url);
const SPINNING_THREAD = new URL("../helpers/epcis-spinning-thread-entry.mjs", import.meta.url);
const CORPUS = fileURLToPath(new URL("../../../as2-core/test/fixtures/epcis/", import.meta.url));
const NOW = new Date(JSON.parse(readFileSync(`${CORPUS}manifest.json`, "utf8")).now);
const ALL = [...EPCIS_RULES];
const CONTEXT = { tenantId: "tnt_1", sourceMessageId: "msg_1", recordTime: new Date("2024-03-02T00:00:00Z") };
const MB = 1024 * 1024;
/** A generous watchdog: only the test of the watchdog relies on it. */
const PATIENT = { watchdogMs: 5_000 };

const pools: EpcisThreadPool[] = [];
afterEach(async () => {
	await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function startPool(options: EpcisThreadPoolOptions = {}): EpcisThreadPool {
	const pool = createEpcisThreadPool({
		entry: REAL_THREAD,
		execArgv: ["--conditions=dev-source"],
		threads: 1,
		...options,
	});
	pools.push(pool);
	return pool;
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** A document whose first bytes are sent at once and the rest when `open()` is called. */
function gated(document = DOCUMENT_20) {
	let open = () => {};
	const gate = new Promise<void>((resolve) => (open = resolve));
	async function* body(): AsyncGenerator<Uint8Array> {
		yield bytes(document.slice(0, 100));
		await gate;
		yield bytes(document.slice(100));
	}
	return { body: body(), open };
}

async function collect(records: AsyncIterable<EpcisEventRecord | null>): Promise<(EpcisEventRecord | null)[]> {
	const out: (EpcisEventRecord | null)[] = [];
	for await (const record of records) out.push(record);
	return out;
}

async function rejection(promise: Promise<unknown>): Promise<As2Error> {
	const error = await promise.then(
		() => null,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(As2Error);
	return error as As2Error;
}

/** A document of small events, about `size` bytes. */
const smallEvents = (size: number) => manyEvents(Math.ceil(size / 330));

/** One ObjectEvent whose epcList holds `size` bytes of short EPCs: the costliest kind of single event. */
function oneLargeEvent(size: number): string {
	const epcs = "<epc>a</epc>".repeat(Math.floor(size / 12));
	return `<?xml version="1.0" encoding="UTF-8"?><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" creationDate="2013-06-04T14:59:02.099+02:00"><EPCISBody><EventList><ObjectEvent><eventTime>2013-06-08T14:58:56.591Z</eventTime><eventTimeZoneOffset>+02:00</eventTimeZoneOffset><epcList>${epcs}</epcList><action>OBSERVE</action></ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>`;
}

const budgetRefusal = (result: EpcisValidationResult, code: string) => {
	expect(result.valid).toBe(false);
	expect(result.errors).toEqual([expect.objectContaining({ rule: "parse", code })]);
	expect(Object.values(result.results).every((r) => r === "failed")).toBe(true);
};

describe("EPCIS thread pool", () => {
	it("validates and reads every corpus document exactly as the event loop does", async () => {
		const pool = startPool({ ...PATIENT, threads: 2 });
		const local = createInThreadEpcisEngine();
		const files = readdirSync(CORPUS).filter((f) => f.endsWith(".xml"));
		expect(files.length).toBeGreaterThan(20);
		for (const file of files) {
			const document = readFileSync(`${CORPUS}${file}`);
			for (const rules of [ALL, ["business_rules" as const]]) {
				const [threaded, inline] = await Promise.all([
					pool.validate(document, { rules, now: NOW }),
					local.validate(document, { rules, now: NOW }),
				]);
				expect(threaded, file).toEqual(inline);
			}
		}
		// A stream in odd-sized chunks, and the records of a document of every event type.
		async function* chunked(): AsyncGenerator<Uint8Array> {
			const all = bytes(DOCUMENT_20);
			for (let at = 0; at < all.byteLength; at += 777) yield all.subarray(at, at + 777);
		}
		expect(await pool.validate(chunked(), { rules: ALL, now: NOW })).toEqual(
			await local.validate(DOCUMENT_20, { rules: ALL, now: NOW }),
		);
		const records = await collect(pool.readEventRecords(chunked(), CONTEXT));
		expect(records).toEqual(await collect(local.readEventRecords(DOCUMENT_20, CONTEXT)));
		expect(records.map((r) => r?.eventIndex)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(records[0]?.eventTime).toBeInstanceOf(Date);
	});

	it("streams the records of a long document in batches, in order", async () => {
		const pool = startPool(PATIENT);
		const records = await collect(pool.readEventRecords(manyEvents(2_500), CONTEXT));
		expect(records.map((r) => r?.eventIndex)).toEqual(Array.from({ length: 2_500 }, (_, n) => n));
		expect(records.at(-1)?.event.eventID).toBe("ev:big-2499");
	});

	it("fails a document that does not parse with EPCIS_PARSE_ERROR, as the event loop does", async () => {
		const pool = startPool(PATIENT);
		const broken = `${DOCUMENT_20.slice(0, 2_000)}<unclosed>`;
		const error = await rejection(collect(pool.readEventRecords(broken, CONTEXT)));
		expect(error.code).toBe("EPCIS_PARSE_ERROR");
		expect(error.details).toMatchObject({ code: "XML_NOT_WELL_FORMED" });
	});

	it("bounds its work: places, then a queue of validations, then SERVICE_UNAVAILABLE at once", async () => {
		const pool = startPool({ ...PATIENT, tasksPerThread: 1, queue: 1 });
		const first = gated();
		const second = gated();
		const running = pool.validate(first.body, { rules: ALL, now: NOW });
		const queued = pool.validate(second.body, { rules: ALL, now: NOW });
		expect(pool.stats()).toMatchObject({ running: 1, queued: 1 });

		const refused = await rejection(pool.validate(DOCUMENT_20, { rules: ALL, now: NOW }));
		expect(refused.code).toBe("SERVICE_UNAVAILABLE");
		expect(refused.status).toBe(503);
		expect(refused.details).toEqual({ retry_after_seconds: 2 });
		// Reading events is background work: it never queues.
		expect((await rejection(collect(pool.readEventRecords(DOCUMENT_20, CONTEXT)))).code).toBe("SERVICE_UNAVAILABLE");

		first.open();
		second.open();
		expect((await running).eventCount).toBe(6);
		expect((await queued).eventCount).toBe(6);
		expect(pool.stats()).toMatchObject({ running: 0, queued: 0, restarts: 0 });
	});

	it("starts threads when work comes and ends them once idle: an idle pool holds no thread", async () => {
		const pool = startPool({ threads: 2, idleMs: 300, watchdogMs: 100 });
		expect(pool.stats().threads).toBe(0);
		// Both held open until both are running: two at once need two threads, however fast a
		// loaded machine finishes the first (an ungated first could free its thread for the second).
		const first = gated();
		const second = gated();
		const both = Promise.all([
			pool.validate(first.body, { rules: ALL, now: NOW }),
			pool.validate(second.body, { rules: ALL, now: NOW }),
		]);
		await eventually(async () => pool.stats().running === 2, "both documents running");
		expect(pool.stats().threads).toBe(2);
		first.open();
		second.open();
		const [one, two] = await both;
		expect([one.eventCount, two.eventCount]).toEqual([6, 6]);
		await eventually(async () => pool.stats().threads === 0, "the idle threads ended");
		expect((await pool.validate(DOCUMENT_20, { rules: ALL, now: NOW })).eventCount).toBe(6);
		expect(pool.stats()).toMatchObject({ threads: 1, restarts: 0 });
	});

	it("refuses a document over its time budget at a chunk's end, and the thread serves on", async () => {
		// 200 ms for a 16 MB document, which takes the validator seconds on any machine (2-4 MB/s
		// here): refused after a few chunks. The 6-event document after it takes ~5 ms, so a
		// loaded machine still has 40 times that before the same budget would refuse it.
		const pool = startPool({ ...PATIENT, budget: { baseMs: 200, msPerMb: 0 } });
		const long = smallEvents(16 * MB);
		budgetRefusal(await pool.validate(long, { rules: ALL, now: NOW }), "EPCIS_BUDGET_EXCEEDED");
		const error = await rejection(collect(pool.readEventRecords(long, CONTEXT)));
		expect(error.code).toBe("EPCIS_PARSE_ERROR");
		expect(error.details).toEqual({ code: "EPCIS_BUDGET_EXCEEDED" });
		expect(error.message).toMatch(/time budget/);
		expect((await pool.validate(DOCUMENT_20, { rules: ALL, now: NOW })).eventCount).toBe(6);
		expect(pool.stats().restarts).toBe(0);
	});

	it("ends a thread stuck in one step past the budget: that task refused, the others failed cleanly, the thread replaced", async () => {
		// The budget is also the replacement thread's for DOCUMENT_20 below, a fresh thread that
		// loads the validator first: 200 ms was once too little for that at load 15.
		const pool = startPool({
			entry: SPINNING_THREAD,
			tasksPerThread: 2,
			budget: { baseMs: 2000, msPerMb: 0 },
			watchdogMs: 50,
		});
		const bystander = gated();
		const interrupted = rejection(pool.validate(bystander.body, { rules: ALL, now: NOW }));
		await eventually(async () => pool.stats().running === 1, "the bystander running");
		const stuck = pool.validate("spin forever", { rules: ALL, now: NOW });
		budgetRefusal(await stuck, "EPCIS_BUDGET_EXCEEDED");
		const error = await interrupted;
		expect(error.code).toBe("SERVICE_UNAVAILABLE");
		expect(error.message).toMatch(/interrupted/);
		expect(pool.stats().restarts).toBe(1);
		expect((await pool.validate(DOCUMENT_20, { rules: ALL, now: NOW })).eventCount).toBe(6);
		expect(pool.stats()).toMatchObject({ threads: 1, running: 0 });
	});

	it("replaces a thread that runs out of heap: the document refused, the other task failed cleanly", async () => {
		// A 4 MB event needs hundreds of MB of heap to validate; the thread has 96.
		const pool = startPool({ ...PATIENT, threadMemoryMb: 96, tasksPerThread: 2 });
		const bystander = gated();
		const interrupted = rejection(pool.validate(bystander.body, { rules: ALL, now: NOW }));
		const result = await pool.validate(oneLargeEvent(4 * MB), { rules: ALL, now: NOW });
		budgetRefusal(result, "EPCIS_MEMORY_LIMIT_EXCEEDED");
		expect(result.errors[0]?.message).toMatch(/96 MB of heap/);
		expect((await interrupted).code).toBe("SERVICE_UNAVAILABLE");
		expect(pool.stats().restarts).toBe(1);
		expect((await pool.validate(DOCUMENT_20, { rules: ALL, now: NOW })).eventCount).toBe(6);
	});

	it("fails with the input's own error when the input fails, and frees its place", async () => {
		const pool = startPool({ ...PATIENT, tasksPerThread: 1, queue: 0 });
		async function* overLimit(): AsyncGenerator<Uint8Array> {
			yield bytes(DOCUMENT_20.slice(0, 500));
			throw new As2Error("PAYLOAD_TOO_LARGE", "the document exceeds the plan's 500 bytes");
		}
		const error = await rejection(pool.validate(overLimit(), { rules: ALL, now: NOW }));
		expect(error.code).toBe("PAYLOAD_TOO_LARGE");
		expect(pool.stats().running).toBe(0);
		expect((await pool.validate(DOCUMENT_20, { rules: ALL, now: NOW })).eventCount).toBe(6);
	});

	it("stops the thread's task when the reader of records stops early", async () => {
		const pool = startPool({ ...PATIENT, tasksPerThread: 1, queue: 0 });
		for await (const record of pool.readEventRecords(manyEvents(5_000), CONTEXT)) {
			expect(record?.eventIndex).toBe(0);
			break;
		}
		await eventually(async () => pool.stats().running === 0, "the task stopped");
		expect((await collect(pool.readEventRecords(DOCUMENT_20, CONTEXT))).length).toBe(6);
	});

	it("fails running and queued work when closed, and takes no more", async () => {
		const pool = startPool({ ...PATIENT, tasksPerThread: 1, queue: 1 });
		const running = rejection(pool.validate(gated().body, { rules: ALL, now: NOW }));
		const queued = rejection(pool.validate(gated().body, { rules: ALL, now: NOW }));
		await pool.close();
		expect((await running).code).toBe("SERVICE_UNAVAILABLE");
		expect((await queued).code).toBe("SERVICE_UNAVAILABLE");
		expect((await rejection(pool.validate(DOCUMENT_20, { rules: ALL, now: NOW }))).code).toBe("SERVICE_UNAVAILABLE");
	});

	it("will not start without its thread's entry (a server that was not built)", () => {
		expect(() => createEpcisThreadPool({ entry: new URL("./no-such-thread.js", import.meta.url) })).toThrow(
			/npm run build/,
		);
	});
});
