import type { ClaimOptions, JobLease, JobRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEND_JOB } from "../../src/service/messages/send-job-kind.ts";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";

/**
 * A submitted message's send job is written leased to the submitting instance's worker and run
 * by it without a claim (issue #20). Should that instance die right after the commit, the job
 * waits for its lease to run out and is then sent, once, by another worker.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partner: string;
const claimed: { options: ClaimOptions; took: JobRecord[] }[] = [];
const handedOff: { job: JobRecord; lease: JobLease }[] = [];

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
	expect(await receivedCopies(message.messageId)).toBe(1);
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
	expect(await receivedCopies(message.messageId)).toBe(1);
});
