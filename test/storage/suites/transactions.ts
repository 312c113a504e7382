import type { As2Store } from "@as2kit/core/store";
import { expect } from "vitest";
import { account, at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const transactionTests = {
	"transactions - commit together": async ({ store }) => {
		const result = await store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			await tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0);
			return "done";
		});
		expect(result).toBe("done");
		expect(await store.accounts.get("acc_000001")).not.toBeNull();
		expect(await store.jobs.list()).toHaveLength(1);
	},
	"transactions - roll back together on error": async ({ store }) => {
		const failure = store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			await tx.events.append({
				id: "evt_000001",
				accountId: "acc_000001",
				tenantId: null,
				kind: "account.created",
				data: {},
				environment: "live",
				createdAt: T0,
			});
			throw new Error("boom");
		});
		await expect(failure).rejects.toThrow("boom");
		expect(await store.accounts.get("acc_000001")).toBeNull();
		expect(await store.events.get("evt_000001")).toBeNull();
	},
	"transactions - a nested transaction joins the outer one": async ({ store }) => {
		await expect(
			store.transaction(async (tx) => {
				await tx.transaction(async (inner) => inner.accounts.create(account("acc_000001")));
				throw new Error("outer fails");
			}),
		).rejects.toThrow("outer fails");
		expect(await store.accounts.get("acc_000001")).toBeNull();
	},
	// AS2_CHECK_TRANSACTIONS, which the test set-up turns on (test/setup/check-transactions.ts): without
	// the check, the root store inside a body waits for the lock the body holds (SQLite) or runs outside
	// the transaction on another connection (PostgreSQL). Not awaited in the body, so that a store
	// without the check lets them run once the transaction ended (and this test fails) rather than hang.
	"transactions - the root store inside a transaction is refused, a statement and a transaction": async ({ store }) => {
		let statement!: Promise<string>;
		let transaction!: Promise<string>;
		await store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			statement = outcomeOf(() => store.accounts.get("acc_000001"));
			transaction = outcomeOf(() => store.transaction((inner) => inner.accounts.get("acc_000001")));
		});
		expect(await statement).toMatch(/root store was used inside a transaction/);
		expect(await transaction).toMatch(/root store was used inside a transaction/);
		expect(await store.accounts.get("acc_000001")).not.toBeNull();
	},
	"transactions - others see only committed work": async ({ store }) => {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let created!: () => void;
		const written = new Promise<void>((resolve) => {
			created = resolve;
		});
		const tx = store.transaction(async (t) => {
			await t.accounts.create(account("acc_000001", { name: "Draft" }));
			created();
			await gate;
			await t.accounts.update("acc_000001", { name: "Final", updatedAt: at(1) });
		});
		await written;
		// A reader during the transaction either waits for it (SQLite: one writer, one
		// connection) or reads the last committed state (PostgreSQL: MVCC); never "Draft".
		const during = store.accounts.get("acc_000001");
		release();
		await tx;
		expect([null, "Final"]).toContain((await during)?.name ?? null);
		expect((await store.accounts.get("acc_000001"))?.name).toBe("Final");
	},
	"transactions - a unique violation inside rolls back and surfaces as CONFLICT": async ({ store }) => {
		await store.accounts.create(account("acc_000001", { slug: "acme" }));
		const error = await store
			.transaction(async (tx) => {
				await tx.accounts.create(account("acc_000002", { slug: "other" }));
				await tx.accounts.create(account("acc_000003", { slug: "acme" }));
			})
			.catch((e: unknown) => e);
		expect((error as { code?: string }).code).toBe("CONFLICT");
		expect(await store.accounts.get("acc_000002")).toBeNull();
	},
	// The service makes independent calls of one transaction together (packages/as2-core/src/store/together.ts):
	// a pipelining store writes them at once (storage-pg connection.ts). Their order is not the port's to keep.
	"transactions - calls made together commit together": async ({ store }) => {
		await store.transaction(async (tx) => {
			await tx.accounts.create(account("acc_000001"));
			await Promise.all([
				tx.accounts.update("acc_000001", { name: "Renamed", updatedAt: at(1) }),
				tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0),
				tx.usage.incrementMany({ accountId: "acc_000001", period: "2026-01", by: { messages: 1, bytes: 5 } }),
			]);
		});
		expect((await store.accounts.get("acc_000001"))?.name).toBe("Renamed");
		expect(await store.jobs.list()).toHaveLength(1);
		expect(await store.usage.get({ accountId: "acc_000001", period: "2026-01", metric: "bytes" })).toBe(5);
	},
	"transactions - a call made together that fails rolls back every call and surfaces as its error": async ({
		store,
	}) => {
		await store.accounts.create(account("acc_000001", { slug: "acme" }));
		const error = await store
			.transaction(async (tx) => {
				const settled = await Promise.allSettled([
					tx.accounts.create(account("acc_000002", { slug: "other" })),
					tx.accounts.create(account("acc_000003", { slug: "acme" })),
					tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0),
				]);
				const failed = settled.find((outcome) => outcome.status === "rejected");
				if (failed) throw failed.reason;
			})
			.catch((e: unknown) => e);
		expect((error as { code?: string }).code).toBe("CONFLICT");
		expect(await store.accounts.get("acc_000002")).toBeNull();
		expect(await store.jobs.list()).toHaveLength(0);
	},
	// The port's rule (As2Store.transaction): a body awaits every call it makes on `tx`, so that
	// its transaction commits only once every statement of those calls is written. A call on
	// `tx` once the body has settled belongs to no transaction: run, it would commit on its own
	// (or in another transaction of the connection), so it is refused.
	"transactions - a call on the transaction's store after its body settled is refused and writes nothing": async ({
		store,
	}) => {
		let kept: As2Store | null = null;
		await store.transaction(async (tx) => {
			kept = tx;
			await tx.accounts.create(account("acc_000001"));
		});
		const late = kept as unknown as As2Store;
		await expect((async () => late.accounts.create(account("acc_000002", { slug: "late" })))()).rejects.toThrow(
			/after its body settled/,
		);
		await expect((async () => late.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0))()).rejects.toThrow(
			/after its body settled/,
		);
		expect(await store.accounts.get("acc_000001")).not.toBeNull();
		expect(await store.accounts.get("acc_000002")).toBeNull();
		expect(await store.jobs.list()).toHaveLength(0);
	},
} satisfies Record<string, ConformanceTest>;

/** "ran", or the message of the error `call` failed with (thrown or rejected). */
async function outcomeOf(call: () => Promise<unknown>): Promise<string> {
	try {
		await call();
		return "ran";
	} catch (error) {
		return (error as Error).message;
	}
}
