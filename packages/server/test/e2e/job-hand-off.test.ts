import type { ClaimedJob, ClaimOptions, JobLease, JobRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEND_JOB } from "../../src/service/messages/send-job-kind.ts";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";
import { eventually } from "../helpers/worker.ts";

/**
 * A submitted message's send job is written leased to the submitting instance's worker and run
 * by it without a claim (issue #20). Should that instance die right after the commit, the job
 * waits for its lease to run out and is then sent, once, by another worker.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partner: string;
const claimed: { options: ClaimOptions; took: ClaimedJob[] }[] = [];
const handedOff: { job: JobRecord; lease: JobLease }[] = [];
/** The ids the sender's send jobs read with `messages.getById` (a root read of its own). */
const readById: string[] = [];
/** The keys the sender's blob store was read at. */
const blobReads: string[] = [];

beforeAll(async () => {
	pair = await startPair();
	partner = await addPartner(pair.a, pair.b, pair.pki);
	await addPartner(pair.b, pair.a, pair.pki);
	const jobs = pair.a.server.store.jobs;
	const claim = jobs.claim.bind(jobs);
	jobs.claim = async (options) => {
		const took = await claim(options);
		claimed.push({ options, took });
		return took;
	};
	const messages = pair.a.server.store.messages;
	const getById = messages.getById.bind(messages);
	messages.getById = async (id) => {
		readById.push(id);
		return getById(id);
	};
	const blobs = pair.a.server.service.deps.blobs;
	const get = blobs.get.bind(blobs);
	blobs.get = async (key) => {
		blobReads.push(key);
		return get(key);
	};
	// The send job reads a payload through `chunks` where the store has it (fs-blob-store.ts).
	const chunks = blobs.chunks?.bind(blobs);
	if (chunks) {
		blobs.chunks = async (key) => {
			blobReads.push(key);
			return chunks(key);
		};
	}
	// Jobs written in a transaction go through the transaction's own job store.
	const store = pair.a.server.store;
	const transaction = store.transaction.bind(store);
	store.transaction = (fn) =>
		transaction((tx) =>
			fn({
				...tx,
				jobs: {
					...tx.jobs,
					enqueueClaimed: async (job, now, lease) => {
						const written = await tx.jobs.enqueueClaimed(job, now, lease);
						if (written) handedOff.push({ job: written, lease });
						return written;
					},
				},
			}),
		);
});

afterAll(async () => {
	await pair?.close();
});

/** How many messages with this Message-ID the receiver stored. */
async function receivedCopies(messageId: string): Promise<number> {
	const { b } = pair;
	const inbound = await b.server.store.messages.list(b.tenantId, { direction: "inbound" }, { page: 1, perPage: 100 });
	return inbound.items.filter((m) => m.messageId === messageId).length;
}

/** The bytes of a peer's blob. */
async function readAll(peer: typeof pair.b, key: string): Promise<Uint8Array> {
	const stream = await peer.server.service.deps.blobs.get(key);
	return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Fails a queued message on the sender, as only a writer that ignores its job's lease could; resolves to when. */
async function moveOn(id: string): Promise<Date> {
	const at = new Date();
	await pair.a.server.store.messages.transition(id, ["queued"], {
		status: "failed",
		failedAt: at,
		errorCode: "CANCELLED",
		errorMessage: "moved on by the test",
		updatedAt: at,
	});
	return at;
}

it("runs a submitted message's send job on this instance's worker, with no claim", async () => {
	const { a } = pair;
	const id = await sendMessage(a, partner, { mdn_mode: "sync" });
	const message = await settled(a, id);
	expect(message.status).toBe("delivered");
	const [handed] = handedOff.filter(({ job }) => job.payload.messageId === id);
	expect(handed?.job).toMatchObject({ kind: SEND_JOB, attempts: 1 });
	// This process's worker (host:pid:random), not another's.
	expect(handed?.job.lockedBy).toContain(`:${process.pid}:`);
	expect(claimed.flatMap(({ took }) => took).filter((job) => job.payload.messageId === id)).toEqual([]);
	// The job started from the record its submission committed with it: no read of its own.
	expect(readById.filter((read) => read === id)).toEqual([]);
	expect(await receivedCopies(message.messageId)).toBe(1);
});

it("a handed-off send job sends the payload bytes its JSON submission held, without reading its blob back", async () => {
	const { a, b } = pair;
	const content = `held payload ${"x".repeat(2000)} end`;
	const id = await sendMessage(a, partner, { mdn_mode: "sync", payload: { content } });
	const message = await settled(a, id);
	expect(message.status).toBe("delivered");
	expect(handedOff.filter(({ job }) => job.payload.messageId === id)).toHaveLength(1);
	// The submission wrote the payload's blob; the job sent the bytes it was handed instead of reading it back.
	expect(blobReads.filter((key) => key === message.payloadKey)).toEqual([]);
	const [received] = (
		await b.server.store.messages.list(b.tenantId, { direction: "inbound" }, { page: 1, perPage: 100 })
	).items.filter((m) => m.messageId === message.messageId);
	expect(received).toBeDefined();
	expect(new TextDecoder().decode(await readAll(b, received!.payloadKey!))).toBe(content);
	// And the MIC recorded before the POST is that of the bytes sent: the partner's MDN matched it.
	expect(message.mdnStatus).toBe("received");
});

it("a handed-off send job whose message moved on before it ran neither sends it nor overwrites the move", async () => {
	const { a } = pair;
	const deps = a.server.service.deps;
	const reserveWorker = deps.reserveWorker;
	const moved = { at: new Date(0), ran: false };
	// A newer state written between the commit and the job's start, as only a writer that ignores
	// the lease could: the job then starts from a stale record, and its conditional move must fail.
	deps.reserveWorker = (kind) => {
		const slot = reserveWorker(kind);
		if (!slot) return null;
		let handed = false;
		return {
			workerId: slot.workerId,
			leaseMs: slot.leaseMs,
			// The hand-off releases the slot once it has handed the job to it: a no-op then.
			release: () => handed || slot.release(),
			runClaimed(job, record) {
				handed = true;
				void (async () => {
					moved.at = await moveOn(String(job.payload.messageId));
					moved.ran = true;
					slot.runClaimed(job, record);
				})();
			},
		};
	};
	let id: string;
	try {
		id = await sendMessage(a, partner, { mdn_mode: "sync" });
	} finally {
		deps.reserveWorker = reserveWorker;
	}
	expect(handedOff.filter(({ job }) => job.payload.messageId === id)).toHaveLength(1);
	// The job ran (and ended) with the stale record: it is gone once its worker completed it.
	await eventually(
		async () =>
			moved.ran && (await a.server.store.jobs.list({ kind: SEND_JOB })).every((job) => job.payload.messageId !== id),
		"the send job to end",
		60_000,
	);
	const message = await a.server.store.messages.getById(id);
	expect(message).toMatchObject({ status: "failed", errorCode: "CANCELLED", attempts: 0, updatedAt: moved.at });
	expect(await a.server.store.messageAttempts.list(message!.tenantId, id)).toEqual([]);
	expect(await receivedCopies(message!.messageId)).toBe(0);
});

it("sends, once, a handed-off job whose worker died right after the commit, when its lease runs out", async () => {
	const { a } = pair;
	const deps = a.server.service.deps;
	const reserveWorker = deps.reserveWorker;
	// A worker that takes the job and dies: the slot is never run. Its lease is short, for the test.
	deps.reserveWorker = () => ({ workerId: "dead-worker", leaseMs: 1500, runClaimed() {}, release() {} });
	let id: string;
	try {
		id = await sendMessage(a, partner, { mdn_mode: "sync" });
	} finally {
		deps.reserveWorker = reserveWorker;
	}
	const [handed] = handedOff.filter(({ job }) => job.payload.messageId === id);
	expect(handed?.job).toMatchObject({ lockedBy: "dead-worker", attempts: 1 });
	// Polls meanwhile (another message's wake, the idle timer) must leave it alone until then.
	a.server.service.deps.wake();
	const message = await settled(a, id);
	expect(message.status).toBe("delivered");
	const takers = claimed.filter(({ took }) => took.some((job) => job.payload.messageId === id));
	expect(takers).toHaveLength(1);
	expect(takers[0]!.options.now.getTime()).toBeGreaterThan(handed!.lease.lockedUntil.getTime());
	expect(takers[0]!.took.find((job) => job.payload.messageId === id)).toMatchObject({ attempts: 2 });
	expect(message.attempts).toBe(1);
	// Claimed by a poll, not handed off: the claim read the message with the job, the job none of its own.
	expect(takers[0]!.took.find((job) => job.payload.messageId === id)?.message).toMatchObject({ id, attempts: 0 });
	expect(readById.filter((read) => read === id)).toEqual([]);
	expect(await receivedCopies(message.messageId)).toBe(1);
});

it("a claimed send job whose message moved on between the claim and its start neither sends it nor overwrites the move", async () => {
	const { a } = pair;
	const deps = a.server.service.deps;
	const reserveWorker = deps.reserveWorker;
	const jobs = a.server.store.jobs;
	const claim = jobs.claim;
	const moved = { at: new Date(0), ran: false, id: "" };
	// A newer state written after the claim read the message, as only a writer that ignores the
	// lease could: the job then starts from a stale record, and its conditional move must fail.
	// The first send job claimed is this test's: the earlier ones have all ended.
	jobs.claim = async (options) => {
		const took = await claim(options);
		const job = moved.id === "" ? took.find((job) => job.kind === SEND_JOB) : undefined;
		if (job) {
			moved.id = String(job.payload.messageId);
			expect(job.message).toMatchObject({ id: moved.id, status: "queued" });
			moved.at = await moveOn(moved.id);
			moved.ran = true;
		}
		return took;
	};
	try {
		// No slot: the job is written unclaimed and taken by a poll.
		deps.reserveWorker = () => null;
		const id = await sendMessage(a, partner, { mdn_mode: "sync" });
		await eventually(async () => moved.ran, "the claim of the send job", 60_000);
		expect(moved.id).toBe(id);
		await eventually(
			async () =>
				moved.ran &&
				(await a.server.store.jobs.list({ kind: SEND_JOB })).every((job) => job.payload.messageId !== moved.id),
			"the send job to end",
			60_000,
		);
	} finally {
		deps.reserveWorker = reserveWorker;
		jobs.claim = claim;
	}
	// It started from the stale record its claim read, not from a read of its own.
	expect(readById.filter((read) => read === moved.id)).toEqual([]);
	const message = await a.server.store.messages.getById(moved.id);
	expect(message).toMatchObject({ status: "failed", errorCode: "CANCELLED", attempts: 0, updatedAt: moved.at });
	expect(await a.server.store.messageAttempts.list(message!.tenantId, moved.id)).toEqual([]);
	expect(await receivedCopies(message!.messageId)).toBe(0);
});
