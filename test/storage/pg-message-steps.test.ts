/**
 * storage-pg's own MessageSteps (repositories/message-steps.ts): a submission and a settlement
 * are one statement each, where the same steps made of the port's calls (stepsByCalls, what
 * storage-sqlite runs) are a transaction of several (docs/performance-storage.md, "One statement
 * a step (stop 37)"). What they write is the conformance suite's (suites/message-steps.ts).
 */
import { type As2Store, type MessageSteps, messageSteps, type SubmitStep } from "@as2kit/core/store";
import { createPgStore } from "@as2kit/storage-pg";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase, pgUrl } from "../pg/databases.ts";
import { account, at, T0, tenant } from "./suites/fixtures.ts";
import { attempt } from "./suites/message-attempts.ts";
import { message } from "./suites/messages.ts";

const submission = (): SubmitStep => ({
	message: message(""),
	usage: { accountId: "acc_000001", period: "2026-01", by: { live_messages: 1, live_bytes: 100 } },
	withId: (id) => ({
		events: [
			{
				kind: "message.queued",
				accountId: "acc_000001",
				tenantId: "tnt_000001",
				environment: "live",
				data: { id },
				createdAt: T0,
			},
		],
		jobs: [{ kind: "send", key: `send:${id}`, payload: { messageId: id }, runAt: T0 }],
	}),
	fanOut: { kind: "webhook.fan_out", runAt: T0 },
});

const settlement = (id: string, jobId: string) => ({
	id,
	from: ["queued" as const],
	patch: { status: "delivered" as const, deliveredAt: at(1), updatedAt: at(1) },
	attempt: attempt(1, { messageId: id, outcome: "succeeded" }),
	completeJob: { id: jobId, workerId: "w1" },
	events: (["message.sent", "message.delivered"] as const).map((kind) => ({
		kind,
		accountId: "acc_000001",
		tenantId: "tnt_000001",
		environment: "live" as const,
		data: { id },
		createdAt: at(1),
	})),
	fanOut: { kind: "webhook.fan_out", runAt: at(1) },
});

describe.skipIf(pgUrl() === null)("storage-pg: a message's steps", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("writes a submission and a settlement as one statement each; by the port's calls they are several", async () => {
		const database = await createTestDatabase();
		const store = await createPgStore({ url: database.url, poolSize: 2 });
		try {
			await store.accounts.create(account("acc_000001"));
			await store.tenants.create(tenant("tnt_000001", "acc_000001"));
			const own = store.messageSteps!;
			expect(own).toBeDefined();
			// The same store without its own steps: messageSteps() makes them of the separate calls.
			const byCalls = messageSteps(Object.assign(Object.create(store) as As2Store, { messageSteps: undefined }));
			const queries = vi.spyOn(pg.Client.prototype, "query");
			const statementsOf = async (steps: MessageSteps) => {
				queries.mockClear();
				const submitted = await steps.submit(submission());
				const submitting = queries.mock.calls.length;
				// The send job, claimed as a worker would: settle ends it.
				await store.jobs.claim({ limit: 1, workerId: "w1", leaseMs: 60_000, now: at(0) });
				queries.mockClear();
				const settled = await steps.settle(settlement(submitted.id, submitted.job!.id));
				expect(settled).toMatchObject({ moved: { id: submitted.id, status: "delivered" }, jobCompleted: true });
				return [submitting, queries.mock.calls.length];
			};
			// The first steps create the id sequences (a connection of their own): counted after them.
			await statementsOf(own);
			expect(await statementsOf(own)).toEqual([1, 1]);
			const [submitting, settling] = await statementsOf(byCalls);
			expect(submitting).toBeGreaterThanOrEqual(5);
			expect(settling).toBeGreaterThanOrEqual(5);
		} finally {
			await store.close();
			await database.drop();
		}
	});
});
