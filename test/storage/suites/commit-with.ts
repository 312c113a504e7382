import { type As2Store, commitWith } from "@as2kit/core/store";
import { expect } from "vitest";
import { account, at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

/**
 * The message path's last calls, as the service makes them: a job, the usage count and (unless
 * `event` is false) an event. Each is called here, so every one made must be handed over: a call
 * made and left out would run on after the body (the port's rule is that a body awaits them all).
 */
const lastCalls = (tx: As2Store, accountId: string, { event = true } = {}) => [
	tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0),
	tx.usage.incrementMany({ accountId, period: "2026-01", by: { messages: 1, bytes: 5 } }),
	...(event
		? [
				tx.events.appendNew({
					accountId,
					tenantId: null,
					kind: "account.updated",
					data: {},
					environment: "live",
					createdAt: T0,
				}),
			]
		: []),
];

/**
 * A transaction's last calls handed to its store (As2Store.commitWith, `commitWith` of the
 * port): PostgreSQL writes COMMIT with their statements, SQLite awaits them and commits as
 * always. Either way the transaction commits only if every statement succeeded.
 */
export const commitWithTests = {
	"transactions - commitWith: the last calls commit with every write before them": async ({ store }) => {
		const result = await store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			await commitWith(tx, [...lastCalls(tx, "acc_000001"), undefined]);
			return "done";
		});
		expect(result).toBe("done");
		expect(await store.accounts.get("acc_000001")).not.toBeNull();
		expect(await store.jobs.list()).toHaveLength(1);
		expect(await store.usage.get({ accountId: "acc_000001", period: "2026-01", metric: "bytes" })).toBe(5);
		expect(await store.events.list({ accountId: "acc_000001" })).toHaveLength(1);
	},
	"transactions - commitWith: a last call that fails rolls back every write and surfaces as its error": async ({
		store,
	}) => {
		await store.accounts.create(account("acc_000001", { slug: "acme" }));
		for (const failingFirst of [false, true]) {
			const error = await store
				.transaction(async (tx) => {
					await tx.accounts.create(account("acc_000002", { slug: "other" }));
					const failing = tx.accounts.create(account("acc_000003", { slug: "acme" }));
					const others = lastCalls(tx, "acc_000002");
					return commitWith(tx, failingFirst ? [failing, ...others] : [...others, failing]);
				})
				.catch((e: unknown) => e);
			expect((error as { code?: string }).code, `failing first: ${failingFirst}`).toBe("CONFLICT");
			expect(await store.accounts.get("acc_000002")).toBeNull();
			expect(await store.jobs.list()).toHaveLength(0);
			expect(await store.usage.get({ accountId: "acc_000002", period: "2026-01", metric: "bytes" })).toBe(0);
			expect(await store.events.list({ accountId: "acc_000002" })).toHaveLength(0);
		}
		// The store serves the next transaction.
		await store.transaction(async (tx) => commitWith(tx, [tx.accounts.create(account("acc_000004"))]));
		expect(await store.accounts.get("acc_000004")).not.toBeNull();
	},
	"transactions - commitWith: nothing is written after the commit, a call on the kept store is refused": async ({
		store,
	}) => {
		let kept: As2Store | null = null;
		await store.transaction(async (tx) => {
			kept = tx;
			await tx.accounts.create(account("acc_000001"));
			return commitWith(tx, lastCalls(tx, "acc_000001"));
		});
		// Committed as the transaction resolved: every last call's write is there.
		expect(await store.jobs.list()).toHaveLength(1);
		const late = kept as unknown as As2Store;
		await expect((async () => late.accounts.create(account("acc_000002", { slug: "late" })))()).rejects.toThrow(
			/after its body settled/,
		);
		expect(await store.accounts.get("acc_000002")).toBeNull();
		expect(await store.jobs.list()).toHaveLength(1);
	},
	// A nested transaction joins the outer one (As2Store.transaction): its last calls are not the
	// outer body's, whose later writes must still commit with it.
	"transactions - commitWith: in a nested transaction, the outer body's later writes commit too": async ({ store }) => {
		await store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			await tx.transaction((inner) => commitWith(inner, lastCalls(inner, "acc_000001", { event: false })));
			await tx.accounts.update("acc_000001", { name: "Renamed", updatedAt: at(1) });
		});
		expect((await store.accounts.get("acc_000001"))?.name).toBe("Renamed");
		expect(await store.jobs.list()).toHaveLength(1);
	},
} satisfies Record<string, ConformanceTest>;
