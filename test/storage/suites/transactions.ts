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
} satisfies Record<string, ConformanceTest>;
