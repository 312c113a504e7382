import {
	type As2Store,
	type EventFanOut,
	type EventRecord,
	type JobRecord,
	type MessageListFilter,
	type MessageRecord,
	type MessageStatus,
	messageSteps,
	type StepEvent,
	type StepJob,
	type SubmitStep,
} from "@as2kit/core/store";
import { expect } from "vitest";
import { at } from "./fixtures.ts";
import { attempt } from "./message-attempts.ts";
import { message } from "./messages.ts";
import type { ConformanceTest } from "./types.ts";
import { endpoint } from "./webhooks.ts";

/**
 * A message's steps as single port calls (message-steps.ts): `messageSteps(store)` is the
 * store's own (storage-pg: one statement a step, the new id put in place of the stand-in
 * `withId(id)` was called with) or the same step made of the separate calls (`stepsByCalls`).
 * Either way a step writes what the separate calls would, all of it or nothing.
 */

const TENANT = "tnt_000001";
const ACCOUNT = "acc_000001";
const FAN_OUT: EventFanOut = { kind: "webhook.fan_out", runAt: at(50) };
const PAGE = { page: 1, perPage: 50 };

/** A new message as the service submits it: its id is the store's to take. */
const fields = (overrides: Partial<MessageRecord> = {}): MessageRecord =>
	message("", { messageId: "order-1@as2kit.example", createdAt: at(1), updatedAt: at(1), ...overrides });

const stepEvent = (kind: string, data: EventRecord["data"], createdAt = at(1)): StepEvent => ({
	accountId: ACCOUNT,
	tenantId: TENANT,
	kind,
	data,
	environment: "live",
	createdAt,
});

const sendJob = (id: string, overrides: Partial<StepJob> = {}): StepJob => ({
	kind: "send",
	key: `send:${id}`,
	payload: { messageId: id },
	priority: 5,
	runAt: at(2),
	...overrides,
});

/** A submit of `writes` (what names the message, made of its id), recording the ids `withId` was called with. */
function submitOf(
	writes: (id: string) => ReturnType<SubmitStep["withId"]>,
	overrides: Partial<SubmitStep> = {},
): SubmitStep & { calls: string[] } {
	const calls: string[] = [];
	return {
		message: fields(),
		withId: (id) => {
			calls.push(id);
			return writes(id);
		},
		fanOut: FAN_OUT,
		calls,
		...overrides,
	};
}

/** A queued message submitted with its send job, held by `workerId` (the hand-off the service makes). */
async function submitted(
	store: As2Store,
	{ workerId = "w1", ...overrides }: Partial<MessageRecord> & { workerId?: string } = {},
): Promise<{ message: MessageRecord; job: JobRecord }> {
	const lease = { workerId, lockedUntil: at(31) };
	const step = submitOf((id) => ({ events: [], jobs: [sendJob(id, { lease })] }), { message: fields(overrides) });
	const { id, job } = await messageSteps(store).submit(step);
	return { message: (await store.messages.get(TENANT, id))!, job: job! };
}

/** The number of an `evt_` id: ids compare by it, not as text. */
function eventNumber(id: string): number {
	expect(id).toMatch(/^evt_\d+$/);
	return Number(id.slice("evt_".length));
}

function expectAscending(ids: readonly string[]): void {
	const numbers = ids.map(eventNumber);
	expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
	expect(new Set(numbers).size).toBe(numbers.length);
}

const allEvents = (store: As2Store) => store.events.list({ accountId: ACCOUNT });
const withoutId = ({ id: _, ...event }: EventRecord): StepEvent => event;

async function fanOutJobs(store: As2Store): Promise<[unknown, Date, Date][]> {
	const jobs = await store.jobs.list({ kind: FAN_OUT.kind });
	return jobs
		.map((job): [unknown, Date, Date] => [job.payload.eventId, job.runAt, job.createdAt])
		.sort((a, b) => eventNumber(String(a[0])) - eventNumber(String(b[0])));
}

/** The error `run` rejects with (it must reject). */
async function failure(run: Promise<unknown>): Promise<unknown> {
	return run.then(
		() => expect.fail("expected the call to fail"),
		(error: unknown) => error,
	);
}

/** A delivered move, as a send job's success makes it. */
const delivered = (at10 = at(10)) => ({
	status: "delivered" as MessageStatus,
	mdnStatus: "received" as const,
	attempts: 1,
	lastAttemptAt: at(9),
	sentAt: at(9),
	deliveredAt: at10,
	transmissionTimeMs: 120,
	mic: "abc=, sha-256",
	mdnData: {
		disposition: "automatic-action/MDN-sent-automatically; processed",
		receivedContentMic: "abc=, sha-256",
		reportingUa: "partner",
		originalMessageId: "order-1@as2kit.example",
		finalRecipient: "PARTNER",
		signed: true,
		signatureValid: true,
		micMatches: true,
		messageId: "mdn-1@partner.example",
		receivedAt: "2026-01-01T00:00:10.000Z",
	},
	details: { attempt_mics: ["abc=, sha-256"], layers: ["signed", "encrypted"] },
	updatedAt: at10,
});

export const messageStepsTests = {
	"message steps - submit writes the message, its listing, usage, events and jobs, the new id wherever withId(id) put it":
		async ({ store }) => {
			const lease = { workerId: "w1", lockedUntil: at(31) };
			const writes = (id: string) => ({
				events: [
					stepEvent("message.queued", {
						id,
						status: "queued",
						nested: { list: [id, `send:${id}`, 3, null, true], about: `message ${id}, again ${id}` },
					}),
				],
				jobs: [
					sendJob(id, { lease }),
					{ kind: "epcis.index", key: `epcis:${id}`, payload: { messageId: id, ids: [id] }, runAt: at(3) },
					{ kind: "other", payload: { about: `of ${id}` }, runAt: at(4) },
				],
			});
			const step = submitOf(writes, {
				usage: { accountId: ACCOUNT, period: "2026-01", by: { messages: 1, bytes: 100 } },
			});
			const result = await messageSteps(store).submit(step);
			const { id } = result;
			expect(id).toMatch(/^msg_\d+$/);
			expect(step.calls).toHaveLength(1);
			expect(result.fanOut).toBe(false);

			// The message and its listing (the narrow state row), as createNew writes them.
			expect(await store.messages.get(TENANT, id)).toEqual({ ...step.message, id });
			expect(await store.messages.getById(id)).toEqual({ ...step.message, id });
			for (const filter of [{}, { status: "queued" as const }, { mdnStatus: "pending" as const }]) {
				const listed = await store.messages.list(TENANT, filter, PAGE);
				expect([listed.items.map((m) => m.id), listed.total], JSON.stringify(filter)).toEqual([[id], 1]);
			}
			expect((await store.messages.list(TENANT, { status: "delivered" }, PAGE)).total).toBe(0);

			// The usage counters.
			const usage = (metric: string) => store.usage.get({ accountId: ACCOUNT, period: "2026-01", metric });
			expect([await usage("messages"), await usage("bytes")]).toEqual([1, 100]);

			// The event, with the real id in its data (nested, and in longer strings), found by it.
			const expected = writes(id);
			const events = await allEvents(store);
			expect(events.map(withoutId)).toEqual(expected.events);
			eventNumber(events[0]!.id);
			expect(await store.events.get(events[0]!.id)).toEqual(events[0]);
			expect((await store.events.list({ accountId: ACCOUNT, subjectId: id })).map((e) => e.id)).toEqual([
				events[0]!.id,
			]);

			// The jobs, created at the message's createdAt: the first returned as written, claimed
			// by the lease's worker; the others unclaimed.
			const claimedFields = { attempts: 1, lockedBy: "w1", lockedUntil: at(31) };
			const unclaimed = { attempts: 0, lockedBy: null, lockedUntil: null };
			expect(result.job).toEqual({
				id: result.job?.id,
				kind: "send",
				key: `send:${id}`,
				payload: { messageId: id },
				priority: 5,
				runAt: at(2),
				...claimedFields,
				lastError: null,
				createdAt: at(1),
			});
			expect(await store.jobs.get(result.job!.id)).toEqual(result.job);
			const jobs = (await store.jobs.list()).sort((a, b) => a.kind.localeCompare(b.kind));
			expect(jobs.map(({ id: _, ...job }) => job)).toEqual(
				[
					{ kind: "epcis.index", key: `epcis:${id}`, payload: { messageId: id, ids: [id] }, priority: 0, runAt: at(3) },
					{ kind: "other", key: null, payload: { about: `of ${id}` }, priority: 0, runAt: at(4) },
					{ kind: "send", key: `send:${id}`, payload: { messageId: id }, priority: 5, runAt: at(2), ...claimedFields },
				].map((job) => ({ ...unclaimed, lastError: null, createdAt: at(1), ...job })),
			);
			// Held, the send job is not claimed again while its lease lasts; the others are.
			const claimed = await store.jobs.claim({ workerId: "w2", leaseMs: 1000, limit: 10, now: at(30) });
			expect(claimed.map((j) => j.kind).sort()).toEqual(["epcis.index", "other"]);
			// Its keys are live.
			expect(
				await store.jobs.enqueue({ kind: "send", key: `send:${id}`, payload: {}, runAt: at(1) }, at(1)),
			).toBeNull();
		},
	"message steps - submit calls withId once and only copies its id: texts like an id elsewhere are kept": async ({
		store,
	}) => {
		// The new message is not msg_000001, so that text naming msg_000001 is not its id.
		await store.ids.next("msg_");
		await store.ids.next("msg_");
		const lookalikes = {
			same: "msg_000001",
			prefix: "msg_",
			shorter: "msg_00000",
			longer: "msg_0000011",
			quoted: 'said "msg_000001" \\ msg_ \u00e9\u{1f600}',
			patterns: "$1 $& $$ %s {{id}} \\1 ? :id",
			list: ["msg_", "msg_000001", { deeper: "msg_999999" }],
		};
		const writes = (id: string) => ({
			events: [stepEvent("message.queued", { id, ...lookalikes, mixed: `${id}|msg_000001|${id}` })],
			jobs: [sendJob(id, { payload: { messageId: id, ...lookalikes }, key: `send:${id}` })],
		});
		const step = submitOf(writes, {
			message: fields({
				subject: "Re: msg_000001 and msg_",
				messageId: "msg_000001@partner.example",
				payloadKey: "payloads/msg_",
				headers: { "X-Ref": "msg_000001" },
				details: { ref: "msg_", list: ["msg_000001"] },
			}),
		});
		const { id, job } = await messageSteps(store).submit(step);
		expect(step.calls).toHaveLength(1);
		expect(typeof step.calls[0]).toBe("string");
		expect(id).not.toBe("msg_000001");
		expect(await store.messages.get(TENANT, id)).toEqual({ ...step.message, id });
		expect((await allEvents(store)).map(withoutId)).toEqual(writes(id).events);
		const [expectedJob] = writes(id).jobs;
		expect(job).toMatchObject({ key: expectedJob!.key, payload: expectedJob!.payload });
		expect(await store.jobs.get(job!.id)).toEqual(job);
		// The message's listing finds it by the text as given.
		expect((await store.messages.list(TENANT, { search: "Re: msg_000001" }, PAGE)).items.map((m) => m.id)).toEqual([
			id,
		]);
	},
	"message steps - the events of a step keep the order given, their ids ascending in it": async ({ store }) => {
		// Kinds and times in the reverse of that order: only the order given may decide it.
		const three = (id: string, phase: string) => [
			stepEvent("message.queued", { id, phase, n: 1 }, at(9)),
			stepEvent("message.processing", { id, phase, n: 2 }, at(8)),
			stepEvent("message.delivered", { id, phase, n: 3 }, at(7)),
		];
		const { id } = await messageSteps(store).submit(submitOf((id) => ({ events: three(id, "submit"), jobs: [] })));
		const afterSubmit = await allEvents(store);
		expect(afterSubmit.map(withoutId)).toEqual(three(id, "submit"));
		expectAscending(afterSubmit.map((e) => e.id));

		const settled = await messageSteps(store).settle({
			id,
			from: ["queued"],
			patch: delivered(),
			events: three(id, "settle"),
			fanOut: FAN_OUT,
		});
		expect(settled.moved?.status).toBe("delivered");
		const afterSettle = await allEvents(store);
		expect(afterSettle.map(withoutId)).toEqual([...three(id, "submit"), ...three(id, "settle")]);
		expectAscending(afterSettle.map((e) => e.id));
		// A message's timeline (by data.id) keeps the order too.
		expect((await store.events.list({ accountId: ACCOUNT, subjectId: id })).map((e) => e.id)).toEqual(
			afterSettle.map((e) => e.id),
		);
	},
	"message steps - events fan out, one job of fanOut.kind each, only while the account has an active endpoint": async ({
		store,
	}) => {
		const two = (id: string, t: number) => [
			stepEvent("message.queued", { id, n: 1 }, at(t)),
			stepEvent("message.scheduled", { id, n: 2 }, at(t)),
		];
		const submit = (t: number) =>
			messageSteps(store).submit(
				submitOf((id) => ({ events: two(id, t), jobs: [] }), {
					message: fields({ messageId: `order-${t}@as2kit.example` }),
				}),
			);
		const settle = (id: string, t: number) =>
			messageSteps(store).settle({
				id,
				from: ["queued"],
				patch: { status: "processing", updatedAt: at(t) },
				events: [stepEvent("message.processing", { id }, at(t))],
				fanOut: { kind: FAN_OUT.kind, runAt: at(t + 100) },
			});
		const eventIds = async (id: string) =>
			(await store.events.list({ accountId: ACCOUNT, subjectId: id })).map((e) => e.id);

		// No endpoint, then an inactive one: no fan-out.
		const none = await submit(1);
		expect([none.fanOut, none.job]).toEqual([false, null]);
		expect(await settle(none.id, 2)).toMatchObject({ fanOut: false });
		await store.webhookEndpoints.create(endpoint("wh_000001", { active: false }));
		const inactive = await submit(3);
		expect(inactive.fanOut).toBe(false);
		expect(await settle(inactive.id, 4)).toMatchObject({ fanOut: false });
		expect(await fanOutJobs(store)).toEqual([]);

		// Active: one job per event of the step, payload { eventId }, due at fanOut.runAt,
		// created at the event's createdAt.
		await store.webhookEndpoints.update(TENANT, "wh_000001", { active: true, updatedAt: at(5) });
		const active = await submit(5);
		expect(active.fanOut).toBe(true);
		expect(await settle(active.id, 6)).toMatchObject({ fanOut: true });
		const [queued, scheduled, processing] = await eventIds(active.id);
		expect(await fanOutJobs(store)).toEqual([
			[queued, FAN_OUT.runAt, at(5)],
			[scheduled, FAN_OUT.runAt, at(5)],
			[processing, at(106), at(6)],
		]);
		for (const job of await store.jobs.list({ kind: FAN_OUT.kind })) {
			expect(Object.keys(job.payload)).toEqual(["eventId"]);
			expect(job).toMatchObject({ key: null, attempts: 0, lockedBy: null });
		}
		// A step without events fans nothing out.
		const quiet = await messageSteps(store).submit(
			submitOf(() => ({ events: [], jobs: [] }), { message: fields({ messageId: "order-7@as2kit.example" }) }),
		);
		expect(quiet.fanOut).toBe(false);
		expect(await fanOutJobs(store)).toHaveLength(3);
	},
	"message steps - submit whose job's key a live job holds writes the message and events, and job is null": async ({
		store,
	}) => {
		// The next message is msg_000002 (one sequence: messages - createNew …): its send key is held.
		expect(await store.ids.next("msg_")).toBe("msg_000001");
		const holder = await store.jobs.enqueueClaimed(
			{ kind: "send", key: "send:msg_000002", payload: { messageId: "msg_000002" }, runAt: at(0) },
			at(0),
			{ workerId: "w9", lockedUntil: at(60) },
		);
		const unheld = await store.jobs.enqueue({ kind: "scan", key: "scan:tnt_000001", payload: {}, runAt: at(0) }, at(0));
		const writes = (id: string) => ({
			events: [stepEvent("message.queued", { id })],
			jobs: [
				sendJob(id, { lease: { workerId: "w1", lockedUntil: at(31) } }),
				sendJob(id, { kind: "scan", key: "scan:tnt_000001" }),
				sendJob(id, { kind: "epcis.index", key: `epcis:${id}` }),
			],
		});
		const step = submitOf(writes, { usage: { accountId: ACCOUNT, period: "2026-01", by: { messages: 1 } } });
		const result = await messageSteps(store).submit(step);
		expect(result.id).toBe("msg_000002");
		expect(result.job).toBeNull();
		expect(await store.messages.get(TENANT, result.id)).toEqual({ ...step.message, id: result.id });
		expect((await allEvents(store)).map(withoutId)).toEqual(writes(result.id).events);
		expect(await store.usage.get({ accountId: ACCOUNT, period: "2026-01", metric: "messages" })).toBe(1);
		// The holders are as they were; of the step's jobs only the one whose key was free is written.
		expect(await store.jobs.get(holder!.id)).toEqual(holder);
		expect(await store.jobs.get(unheld!.id)).toEqual(unheld);
		const jobs = await store.jobs.list();
		expect(jobs.map((j) => j.key).sort()).toEqual(["epcis:msg_000002", "scan:tnt_000001", "send:msg_000002"]);
	},
	"message steps - settle moves the message and writes its attempt, events and the end of its job": async ({
		store,
	}) => {
		for (const from of ["queued", "processing"] as const) {
			const { message: before, job } = await submitted(store, { messageId: `order-${from}@as2kit.example` });
			if (from === "processing") {
				await store.messages.transition(before.id, ["queued"], { status: "processing", updatedAt: at(5) });
			}
			const made = attempt(1, {
				messageId: before.id,
				finishedAt: at(10),
				httpStatus: 200,
				outcome: "succeeded",
				phases: { sendMs: 3, waitMs: 20 },
			});
			const events = [
				stepEvent("message.sent", { id: before.id, status: "sent" }, at(10)),
				stepEvent("message.delivered", { id: before.id, status: "delivered", nested: { mdn: "received" } }, at(10)),
			];
			const result = await messageSteps(store).settle({
				id: before.id,
				from: ["queued", "processing"],
				patch: delivered(),
				attempt: made,
				completeJob: { id: job.id, workerId: "w1" },
				events,
				fanOut: FAN_OUT,
			});
			const after = await store.messages.get(TENANT, before.id);
			expect(after, from).toEqual({ ...before, ...delivered() });
			expect(result, from).toEqual({ moved: after, jobCompleted: true, fanOut: false });
			expect(await store.messageAttempts.get(TENANT, before.id, 1)).toEqual(made);
			expect(await store.jobs.get(job.id)).toBeNull();
			const timeline = await store.events.list({ accountId: ACCOUNT, subjectId: before.id });
			expect(timeline.map(withoutId)).toEqual(events);
			expectAscending(timeline.map((e) => e.id));
		}
	},
	"message steps - settle of a message not in from writes nothing: no attempt, job, event or move": async ({
		store,
	}) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const { message: queued, job } = await submitted(store);
		const sent = await store.messages.transition(queued.id, ["queued"], { status: "sent", sentAt: at(5) });
		const eventsBefore = await allEvents(store);
		const fanOutsBefore = await fanOutJobs(store);
		for (const id of [queued.id, "msg_999999"]) {
			const result = await messageSteps(store).settle({
				id,
				from: ["queued", "processing"],
				patch: delivered(),
				attempt: attempt(1, { messageId: id }),
				completeJob: { id: job.id, workerId: "w1" },
				events: [stepEvent("message.delivered", { id })],
				fanOut: FAN_OUT,
			});
			expect(result, id).toEqual({ moved: null, jobCompleted: false, fanOut: false });
			expect(await store.messageAttempts.list(TENANT, id)).toEqual([]);
		}
		expect(await store.messages.get(TENANT, queued.id)).toEqual(sent);
		expect(await store.jobs.get(job.id)).toEqual(job);
		expect(await allEvents(store)).toEqual(eventsBefore);
		expect(await fanOutJobs(store)).toEqual(fanOutsBefore);
		expect(await store.messages.getById("msg_999999")).toBeNull();
	},
	"message steps - settle whose job another worker holds moves and writes, the job left to it": async ({ store }) => {
		const { message: before, job } = await submitted(store, { workerId: "w2" });
		const made = attempt(1, { messageId: before.id, outcome: "succeeded" });
		const events = [stepEvent("message.delivered", { id: before.id })];
		const step = {
			id: before.id,
			from: ["queued"] as MessageStatus[],
			patch: delivered(),
			attempt: made,
			completeJob: { id: job.id, workerId: "w1" },
			events,
			fanOut: FAN_OUT,
		};
		const result = await messageSteps(store).settle(step);
		expect(result).toEqual({ moved: { ...before, ...delivered() }, jobCompleted: false, fanOut: false });
		expect(await store.messages.get(TENANT, before.id)).toEqual(result.moved);
		expect(await store.messageAttempts.get(TENANT, before.id, 1)).toEqual(made);
		expect((await store.events.list({ accountId: ACCOUNT, subjectId: before.id })).map(withoutId)).toEqual(events);
		expect(await store.jobs.get(job.id)).toEqual(job);
		// A job already gone is not ended either.
		const { message: other } = await submitted(store, { messageId: "order-2@as2kit.example" });
		const gone = await messageSteps(store).settle({
			...step,
			id: other.id,
			attempt: undefined,
			completeJob: { id: "job_999999", workerId: "w1" },
			events: [],
		});
		expect([gone.moved?.status, gone.jobCompleted]).toEqual(["delivered", false]);
	},
	"message steps - settle whose attempt's number exists fails whole with the attempt's CONFLICT": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const { message: before, job } = await submitted(store);
		await store.messageAttempts.create(attempt(1, { messageId: before.id, outcome: "retrying" }));
		// The error as the port's own call throws it.
		const direct = await failure(store.messageAttempts.create(attempt(1, { messageId: before.id })));
		expect(direct).toMatchObject({ code: "CONFLICT", details: { target: expect.any(String) } });
		const eventsBefore = await allEvents(store);
		const jobsBefore = await store.jobs.list();
		const settle = (number: number) =>
			messageSteps(store).settle({
				id: before.id,
				from: ["queued"],
				patch: delivered(),
				attempt: attempt(number, { messageId: before.id, outcome: "succeeded" }),
				completeJob: { id: job.id, workerId: "w1" },
				events: [stepEvent("message.sent", { id: before.id }), stepEvent("message.delivered", { id: before.id })],
				fanOut: FAN_OUT,
			});
		const error = await failure(settle(1));
		expect(error).toMatchObject({ code: "CONFLICT", details: (direct as { details: unknown }).details });
		expect(await store.messages.get(TENANT, before.id)).toEqual(before);
		expect((await store.messages.list(TENANT, { status: "queued" }, PAGE)).items.map((m) => m.id)).toEqual([before.id]);
		expect(await store.messageAttempts.list(TENANT, before.id)).toEqual([
			attempt(1, { messageId: before.id, outcome: "retrying" }),
		]);
		expect(await store.jobs.get(job.id)).toEqual(job);
		expect(await store.jobs.list()).toEqual(jobsBefore);
		expect(await allEvents(store)).toEqual(eventsBefore);
		// The store serves the next step.
		const next = await settle(2);
		expect([next.moved?.status, next.jobCompleted, next.fanOut]).toEqual(["delivered", true, true]);
		expect((await store.messageAttempts.list(TENANT, before.id)).map((a) => a.number)).toEqual([1, 2]);
	},
	"message steps - submit whose message conflicts fails whole with the message's CONFLICT": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		// A partner's inbound Message-ID is stored once (messages_inbound_unique_idx): the only
		// unique key a submit can break. The message is the step's first write, so where the step
		// is made of the separate calls nothing after it is called; where it is one statement, the
		// statement's other writes must not land either.
		const inbound = fields({ direction: "inbound", status: "received", messageId: "dup@partner.example" });
		const usage = { accountId: ACCOUNT, period: "2026-01", by: { messages: 1, bytes: 100 } };
		const writes = (id: string) => ({
			events: [stepEvent("message.received", { id })],
			jobs: [sendJob(id, { kind: "epcis.index", key: `epcis:${id}`, lease: { workerId: "w1", lockedUntil: at(31) } })],
		});
		const first = await messageSteps(store).submit(submitOf(writes, { message: inbound, usage }));
		const { id: _, ...unsaved } = inbound;
		const direct = await failure(store.messages.createNew(unsaved));
		expect(direct).toMatchObject({ code: "CONFLICT", details: { target: expect.any(String) } });
		const eventsBefore = await allEvents(store);
		const jobsBefore = await store.jobs.list();

		const error = await failure(messageSteps(store).submit(submitOf(writes, { message: inbound, usage })));
		expect(error).toMatchObject({ code: "CONFLICT", details: (direct as { details: unknown }).details });
		const listed = await store.messages.list(TENANT, {}, PAGE);
		expect([listed.items.map((m) => m.id), listed.total]).toEqual([[first.id], 1]);
		expect(await store.usage.get({ accountId: ACCOUNT, period: "2026-01", metric: "bytes" })).toBe(100);
		expect(await allEvents(store)).toEqual(eventsBefore);
		expect(await store.jobs.list()).toEqual(jobsBefore);
		// The store serves the next step.
		const next = await messageSteps(store).submit(
			submitOf(writes, { message: { ...inbound, messageId: "other@partner.example" }, usage }),
		);
		expect(await store.messages.get(TENANT, next.id)).toMatchObject({ messageId: "other@partner.example" });
		expect([next.job?.key, next.fanOut]).toEqual([`epcis:${next.id}`, true]);
		expect(await store.usage.get({ accountId: ACCOUNT, period: "2026-01", metric: "bytes" })).toBe(200);
	},
	"message steps - submit whose withId throws writes nothing and rejects with its error": async ({ store }) => {
		const broken = new Error("no writes for this message");
		const step = submitOf(
			() => {
				throw broken;
			},
			{ usage: { accountId: ACCOUNT, period: "2026-01", by: { messages: 1 } } },
		);
		expect(await failure(messageSteps(store).submit(step))).toBe(broken);
		expect(step.calls).toHaveLength(1);
		expect((await store.messages.list(TENANT, {}, PAGE)).total).toBe(0);
		expect(await store.usage.get({ accountId: ACCOUNT, period: "2026-01", metric: "messages" })).toBe(0);
		expect(await store.jobs.list()).toEqual([]);
		// The store serves the next step.
		const next = await messageSteps(store).submit(submitOf((id) => ({ events: [], jobs: [sendJob(id)] })));
		expect(await store.messages.getById(next.id)).not.toBeNull();
		expect(next.job?.key).toBe(`send:${next.id}`);
	},
	"message steps - after a settle, the status filters list the message under its new status only": async ({
		store,
	}) => {
		const { message: moving, job } = await submitted(store);
		const { message: staying } = await submitted(store, { messageId: "order-2@as2kit.example" });
		const listed = async (filter: MessageListFilter) => {
			const page = await store.messages.list(TENANT, filter, PAGE);
			return [page.items.map((m) => m.id).sort(), page.total];
		};
		expect(await listed({ status: "queued" })).toEqual([[moving.id, staying.id].sort(), 2]);
		await messageSteps(store).settle({
			id: moving.id,
			from: ["queued"],
			patch: { status: "processing", updatedAt: at(5) },
			events: [],
			fanOut: FAN_OUT,
		});
		expect(await listed({ status: "queued" })).toEqual([[staying.id], 1]);
		expect(await listed({ status: "processing" })).toEqual([[moving.id], 1]);
		await messageSteps(store).settle({
			id: moving.id,
			from: ["processing"],
			patch: delivered(),
			completeJob: { id: job.id, workerId: "w1" },
			events: [],
			fanOut: FAN_OUT,
		});
		expect(await listed({ status: "processing" })).toEqual([[], 0]);
		expect(await listed({ status: "delivered" })).toEqual([[moving.id], 1]);
		expect(await listed({ mdnStatus: "received" })).toEqual([[moving.id], 1]);
		expect(await listed({ mdnStatus: "pending" })).toEqual([[staying.id], 1]);
		// A move of the MDN status alone (no status in the patch) moves the listing too.
		const late = await messageSteps(store).settle({
			id: moving.id,
			from: ["delivered"],
			patch: { mdnStatus: "failed", errorCode: "MDN_FAILED", updatedAt: at(11) },
			events: [],
			fanOut: FAN_OUT,
		});
		expect(late.moved).toMatchObject({ status: "delivered", mdnStatus: "failed", errorCode: "MDN_FAILED" });
		expect(await listed({ mdnStatus: "received" })).toEqual([[], 0]);
		expect(await listed({ mdnStatus: "failed" })).toEqual([[moving.id], 1]);
		expect(await listed({ status: "delivered", hasErrors: true })).toEqual([[moving.id], 1]);
		// A settle that does not apply leaves the listing as it is.
		const missed = await messageSteps(store).settle({
			id: staying.id,
			from: ["processing"],
			patch: { status: "failed", failedAt: at(9), errorCode: "X", updatedAt: at(9) },
			events: [],
			fanOut: FAN_OUT,
		});
		expect(missed.moved).toBeNull();
		expect(await listed({ status: "failed" })).toEqual([[], 0]);
		expect(await listed({ hasErrors: true })).toEqual([[moving.id], 1]);
		expect(await listed({ status: "queued" })).toEqual([[staying.id], 1]);
	},
} satisfies Record<string, ConformanceTest>;
