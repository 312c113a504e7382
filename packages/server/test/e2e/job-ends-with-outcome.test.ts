import type { As2Store } from "@as2kit/core/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEND_JOB } from "../../src/service/messages/send-job-kind.ts";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";

/**
 * A send job ends in the transaction that records its outcome: one commit less per message,
 * and no moment where the message is final but its job still waits to be completed.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partner: string;
/** For each transaction on the sender: what it did, in order. */
const transactions: string[][] = [];

beforeAll(async () => {
	pair = await startPair();
	partner = await addPartner(pair.a, pair.b, pair.pki);
	await addPartner(pair.b, pair.a, pair.pki);
	const store = pair.a.server.store;
	const transaction = store.transaction.bind(store);
	store.transaction = (fn) =>
		transaction(async (tx) => {
			const steps: string[] = [];
			transactions.push(steps);
			const watched: As2Store = {
				...tx,
				messages: {
					...tx.messages,
					transition: async (id, from, patch) => {
						const moved = await tx.messages.transition(id, from, patch);
						if (moved) steps.push(`message ${moved.status}`);
						return moved;
					},
				},
				jobs: {
					...tx.jobs,
					complete: async (id, workerId) => {
						const completed = await tx.jobs.complete(id, workerId);
						steps.push(completed ? "job completed" : "no job to complete");
						return completed;
					},
				},
			};
			return fn(watched);
		});
});

afterAll(async () => {
	await pair?.close();
});

for (const mdnMode of ["sync", "async", "none"] as const) {
	it(`completes the send job with the outcome of the attempt (mdn_mode ${mdnMode})`, async () => {
		const { a } = pair;
		transactions.length = 0;
		const id = await sendMessage(a, partner, { mdn_mode: mdnMode });
		// The send job's outcome: delivered with a sync MDN, sent otherwise (an async MDN then
		// delivers the message in a transaction of its own).
		const outcome = mdnMode === "sync" ? "delivered" : "sent";
		const message = await settled(a, id, mdnMode === "none" ? ["sent", "failed"] : ["delivered", "failed"]);
		expect(message.status).toBe(mdnMode === "none" ? "sent" : "delivered");
		expect(transactions.find((steps) => steps.includes(`message ${outcome}`))).toEqual([
			`message ${outcome}`,
			"job completed",
		]);
		expect(await a.server.store.jobs.list({ kind: SEND_JOB })).toEqual([]);
	});
}
