import type { AccountRecord, AccountStore, MembershipRecord, MembershipStore, UserStore } from "@as2kit/core/store";
import { and, asc, eq } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { accounts, memberships, users } from "../schema.ts";
import { rawTable } from "./pg-raw-table.ts";

const toAccount = (row: typeof accounts.$inferSelect): AccountRecord => row as AccountRecord;
const toMembership = (row: typeof memberships.$inferSelect): MembershipRecord => row as MembershipRecord;

const RAW_ACCOUNTS = rawTable(accounts);
const ACCOUNT_BY_ID = `select ${RAW_ACCOUNTS.columns} from "accounts" where "id" = $1`;

export function createAccountStore(runner: Runner): AccountStore {
	return {
		create: async (account) => {
			await runner.run((db) => db.insert(accounts).values(account));
		},
		// Every API request and inbound message reads its account: a prepared statement (pg-raw-table.ts).
		get: (id) =>
			runner
				.query<Record<string, unknown>>(ACCOUNT_BY_ID, [id])
				.then(([row]) => (row ? toAccount(RAW_ACCOUNTS.fromRow(row)) : null)),
		findBySlug: (slug) =>
			runner
				.run((db) => db.select().from(accounts).where(eq(accounts.slug, slug)))
				.then(([row]) => (row ? toAccount(row) : null)),
		update: (id, patch) =>
			runner
				.run((db) => db.update(accounts).set(patch).where(eq(accounts.id, id)).returning())
				.then(([row]) => (row ? toAccount(row) : null)),
	};
}

export function createUserStore(runner: Runner): UserStore {
	return {
		create: async (user) => {
			await runner.run((db) => db.insert(users).values(user));
		},
		get: (id) => runner.run((db) => db.select().from(users).where(eq(users.id, id))).then(([row]) => row ?? null),
		findByEmail: (email) =>
			runner.run((db) => db.select().from(users).where(eq(users.email, email))).then(([row]) => row ?? null),
	};
}

export function createMembershipStore(runner: Runner): MembershipStore {
	return {
		create: async (membership) => {
			await runner.run((db) => db.insert(memberships).values(membership));
		},
		get: (accountId, userId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(memberships)
						.where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId))),
				)
				.then(([row]) => (row ? toMembership(row) : null)),
		listForUser: (userId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(memberships)
						.where(eq(memberships.userId, userId))
						.orderBy(asc(memberships.createdAt), asc(memberships.accountId)),
				)
				.then((rows) => rows.map(toMembership)),
	};
}
