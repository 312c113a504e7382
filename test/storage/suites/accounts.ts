import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { account, at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const accountTests = {
	"ids - a sequence per prefix, zero-padded, growing past six digits": async ({ store }) => {
		expect(await store.ids.next("msg_")).toBe("msg_000001");
		expect(await store.ids.next("msg_")).toBe("msg_000002");
		expect(await store.ids.next("prt_master_")).toBe("prt_master_000001");
		const many = await Promise.all(Array.from({ length: 50 }, () => store.ids.next("evt_")));
		expect(new Set(many).size).toBe(50);
	},
	"accounts - create, get, find by slug, update": async ({ store }) => {
		await store.accounts.create(account("acc_000001", { slug: "acme" }));
		expect(await store.accounts.get("acc_000001")).toEqual(account("acc_000001", { slug: "acme" }));
		expect((await store.accounts.findBySlug("acme"))?.id).toBe("acc_000001");
		expect(await store.accounts.get("acc_999999")).toBeNull();
		const updated = await store.accounts.update("acc_000001", { plan: "starter", updatedAt: at(5) });
		expect(updated).toMatchObject({ plan: "starter", name: "Account acc_000001", updatedAt: at(5) });
		expect(await store.accounts.update("acc_999999", { plan: "starter", updatedAt: at(5) })).toBeNull();
	},
	"accounts - slug is unique": async ({ store }) => {
		await store.accounts.create(account("acc_000001", { slug: "acme" }));
		await expectConflict(store.accounts.create(account("acc_000002", { slug: "acme" })));
	},
	"users - email unique, found by email": async ({ store }) => {
		const user = {
			id: "usr_000001",
			name: "Ada",
			email: "ada@example.com",
			passwordHash: "h",
			createdAt: T0,
			updatedAt: T0,
		};
		await store.users.create(user);
		expect(await store.users.findByEmail("ada@example.com")).toEqual(user);
		expect(await store.users.get("usr_000001")).toEqual(user);
		expect(await store.users.findByEmail("bob@example.com")).toBeNull();
		await expectConflict(store.users.create({ ...user, id: "usr_000002" }));
	},
	"memberships - per account and user": async ({ store }) => {
		await store.accounts.create(account("acc_000001"));
		await store.accounts.create(account("acc_000002"));
		await store.memberships.create({ accountId: "acc_000001", userId: "usr_000001", role: "owner", createdAt: T0 });
		await store.memberships.create({ accountId: "acc_000002", userId: "usr_000001", role: "admin", createdAt: at(1) });
		expect((await store.memberships.listForUser("usr_000001")).map((m) => [m.accountId, m.role])).toEqual([
			["acc_000001", "owner"],
			["acc_000002", "admin"],
		]);
		expect(await store.memberships.get("acc_000002", "usr_000002")).toBeNull();
		await expectConflict(
			store.memberships.create({ accountId: "acc_000001", userId: "usr_000001", role: "admin", createdAt: T0 }),
		);
	},
	"sessions - found by token hash, touched and revoked": async ({ store }) => {
		const session = {
			id: "ses_000001",
			userId: "usr_000001",
			accountId: "acc_000001",
			tokenHash: "th",
			createdAt: T0,
			expiresAt: at(3600),
			lastUsedAt: null,
			revokedAt: null,
		};
		await store.sessions.create(session);
		expect(await store.sessions.findByTokenHash("th")).toEqual(session);
		await store.sessions.touch("ses_000001", at(10));
		await store.sessions.revoke("ses_000001", at(20));
		expect(await store.sessions.findByTokenHash("th")).toMatchObject({ lastUsedAt: at(10), revokedAt: at(20) });
		expect(await store.sessions.findByTokenHash("other")).toBeNull();
	},
} satisfies Record<string, ConformanceTest>;
