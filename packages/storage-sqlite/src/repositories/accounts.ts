import type {
	AccountRecord,
	AccountStore,
	MembershipRecord,
	MembershipStore,
	UserRecord,
	UserStore,
} from "@as2kit/core/store";
import { and, eq } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { accounts, memberships, users } from "../schema.ts";

const RAW_ACCOUNTS = rawTable(accounts);
const ACCOUNT_BY_ID = `select ${RAW_ACCOUNTS.columns} from "accounts" where "id" = ?`;
const toAccount = (row: typeof accounts.$inferSelect): AccountRecord => row as AccountRecord;

/** The accounts of `exec`; `one` runs the reads of one statement (connection.ts, `runStatement`). */
export function createAccountStore(exec: Exec, one: Exec = exec): AccountStore {
	return {
		create: (account) => exec((db) => void db.insert(accounts).values(account).run()),
		// Every API request and inbound message reads its account: plain SQL on the hot path (raw-table.ts).
		get: (id) =>
			one((db) => {
				const row = db.$client.prepare(ACCOUNT_BY_ID).get(id) as Record<string, unknown> | undefined;
				return row ? toAccount(RAW_ACCOUNTS.fromRow(row)) : null;
			}),
		findBySlug: (slug) =>
			exec((db) => db.select().from(accounts).where(eq(accounts.slug, slug)).get()).then(orNull(toAccount)),
		update: (id, patch) =>
			exec((db) => db.update(accounts).set(patch).where(eq(accounts.id, id)).returning().get()).then(orNull(toAccount)),
	};
}

export function createUserStore(exec: Exec): UserStore {
	return {
		create: (user) => exec((db) => void db.insert(users).values(user).run()),
		get: (id) => exec((db) => db.select().from(users).where(eq(users.id, id)).get() ?? null),
		findByEmail: (email) =>
			exec((db): UserRecord | null => db.select().from(users).where(eq(users.email, email)).get() ?? null),
	};
}

const toMembership = (row: typeof memberships.$inferSelect): MembershipRecord => row as MembershipRecord;

export function createMembershipStore(exec: Exec): MembershipStore {
	return {
		create: (membership) => exec((db) => void db.insert(memberships).values(membership).run()),
		get: (accountId, userId) =>
			exec((db) =>
				db
					.select()
					.from(memberships)
					.where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)))
					.get(),
			).then(orNull(toMembership)),
		listForUser: (userId) =>
			exec((db) =>
				db.select().from(memberships).where(eq(memberships.userId, userId)).orderBy(memberships.createdAt).all(),
			).then((rows) => rows.map(toMembership)),
	};
}

/** Maps a row that may be missing. */
export function orNull<R, T>(map: (row: R) => T): (row: R | undefined) => T | null {
	return (row) => (row === undefined ? null : map(row));
}
