/**
 * The migration that adds `webhook_endpoints.account_events` (issue #16, defect 3; README,
 * Webhooks: upgrading), on both stores: a database migrated up to the migration before it,
 * holding endpoints of several accounts, is upgraded by the adapter's own migrator; an
 * existing endpoint keeps the account-level events it subscribed to only where a credential
 * reaching the whole account must have created it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { describe, expect, it } from "vitest";
import { pgUrl } from "../pg/databases.ts";
import { migrationsBefore } from "./migrations-before.ts";
import { pgUpgradeAcross } from "./pg-upgrade.ts";

const PACKAGES = new URL("../../packages/", import.meta.url).pathname;
const TAG = "webhook_endpoints_account_events";

type Value = string | number | boolean | Date | null | string[];
type Row = Record<string, Value>;

const T0 = Date.UTC(2026, 0, 1);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** The accounts before the upgrade, and what each endpoint must be after it. */
function scenario(): { rows: [table: string, row: Row][]; expected: Record<string, boolean> } {
	const rows: [string, Row][] = [];
	const tenant = (id: string, account: string, minute: number) =>
		rows.push([
			"tenants",
			{
				id,
				account_id: account,
				name: id,
				slug: id,
				as2_id: id.toUpperCase(),
				status: "active",
				created_at: at(minute),
				updated_at: at(minute),
			},
		]);
	const endpoint = (id: string, account: string, tenantId: string, events: string[]) =>
		rows.push([
			"webhook_endpoints",
			{
				id,
				account_id: account,
				tenant_id: tenantId,
				url: `https://hooks.example.com/${id}`,
				events,
				active: true,
				secret_sealed: "sealed",
				created_at: at(10),
				updated_at: at(10),
			},
		]);
	const key = (id: string, account: string, scope: string, tenantId: string | null, allowed: string[] | null) =>
		rows.push([
			"api_keys",
			{
				id,
				account_id: account,
				tenant_id: tenantId,
				user_id: null,
				name: id,
				key_prefix: "pk_test_",
				key_hash: `hash-${id}`,
				key_last4: "abcd",
				scope,
				environment: "test",
				permissions: ["*"],
				allowed_tenant_ids: allowed,
				created_at: at(5),
				revoked_at: scope === "tenant" ? at(6) : null,
			},
		]);
	const member = (account: string, user: string, role: string) =>
		rows.push(["memberships", { account_id: account, user_id: user, role, created_at: at(1) }]);

	// A: owners and an unrestricted account key only. Its first tenant is the older one,
	// whatever the order of the ids.
	member("acc_a", "usr_a", "owner");
	member("acc_a", "usr_a2", "admin");
	tenant("tnt_a9", "acc_a", 1);
	tenant("tnt_a1", "acc_a", 2);
	key("key_a", "acc_a", "account", null, null);
	endpoint("wh_a_all", "acc_a", "tnt_a9", ["*"]);
	endpoint("wh_a_tenant", "acc_a", "tnt_a9", ["message.sent", "tenant.created"]);
	endpoint("wh_a_billing", "acc_a", "tnt_a9", ["billing.*"]);
	endpoint("wh_a_messages", "acc_a", "tnt_a9", ["message.*", "partner.created"]);
	endpoint("wh_a_second", "acc_a", "tnt_a1", ["*"]);
	// B once had a tenant key (revoked since): any endpoint may be its.
	member("acc_b", "usr_b", "owner");
	tenant("tnt_b", "acc_b", 1);
	key("key_b", "acc_b", "tenant", "tnt_b", null);
	endpoint("wh_b_all", "acc_b", "tnt_b", ["*"]);
	// C has an account key restricted to some tenants.
	member("acc_c", "usr_c", "owner");
	tenant("tnt_c", "acc_c", 1);
	key("key_c", "acc_c", "account", null, ["tnt_c"]);
	endpoint("wh_c_all", "acc_c", "tnt_c", ["*"]);
	// D has a member, whose session reaches no further than the tenants.
	member("acc_d", "usr_d", "owner");
	member("acc_d", "usr_d2", "member");
	tenant("tnt_d", "acc_d", 1);
	endpoint("wh_d_all", "acc_d", "tnt_d", ["account.*"]);
	return {
		rows,
		expected: {
			wh_a_all: true,
			wh_a_tenant: true,
			wh_a_billing: true,
			wh_a_messages: false,
			wh_a_second: false,
			wh_b_all: false,
			wh_c_all: false,
			wh_d_all: false,
		},
	};
}

const insertSql = (table: string, row: Row, placeholder: (n: number) => string) => {
	const columns = Object.keys(row);
	return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map((_, i) => placeholder(i + 1)).join(", ")})`;
};

describe("the account_events migration", () => {
	it("on SQLite keeps account-level events only where a whole-account credential must have subscribed", () => {
		const scratch = mkdtempSync(join(tmpdir(), "as2kit-account-events-"));
		const sqlite = new Database(join(scratch, "store.db"));
		try {
			const db = drizzleSqlite(sqlite);
			migrateSqlite(db, { migrationsFolder: migrationsBefore("storage-sqlite", TAG, scratch) });
			const { rows, expected } = scenario();
			for (const [table, row] of rows) {
				const values = Object.values(row).map((v) =>
					v instanceof Date
						? v.getTime()
						: Array.isArray(v)
							? JSON.stringify(v)
							: typeof v === "boolean"
								? Number(v)
								: v,
				);
				sqlite.prepare(insertSql(table, row, () => "?")).run(...values);
			}
			migrateSqlite(db, { migrationsFolder: join(PACKAGES, "storage-sqlite/migrations") });
			const after = sqlite.prepare(`select "id", "account_events" from "webhook_endpoints"`).all() as {
				id: string;
				account_events: number;
			}[];
			expect(Object.fromEntries(after.map((e) => [e.id, e.account_events === 1]))).toEqual(expected);
		} finally {
			sqlite.close();
			rmSync(scratch, { recursive: true, force: true });
		}
	});

	it.skipIf(pgUrl() === null)(
		"on PostgreSQL keeps account-level events only where a whole-account credential must have subscribed",
		async () => {
			const { rows, expected } = scenario();
			await pgUpgradeAcross(
				TAG,
				async (client) => {
					for (const [table, row] of rows) {
						const values = Object.values(row).map((v) => (Array.isArray(v) ? JSON.stringify(v) : v));
						await client.query(
							insertSql(table, row, (n) => `$${n}`),
							values,
						);
					}
				},
				async ({ client }) => {
					const after = await client.query<{ id: string; account_events: boolean }>(
						`select "id", "account_events" from "webhook_endpoints"`,
					);
					expect(Object.fromEntries(after.rows.map((e) => [e.id, e.account_events]))).toEqual(expected);
				},
			);
		},
	);
});
