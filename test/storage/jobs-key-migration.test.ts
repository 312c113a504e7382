/**
 * The migration that makes the jobs' key unique over keyed jobs alone (storage-pg, stop 35): a
 * database migrated up to the migration before it, holding jobs, is upgraded by the adapter's
 * own migrator; a key held before it still turns a second job away and is found by the keyed
 * actions, and keyless jobs are many.
 */
import { describe, expect, it } from "vitest";
import { pgUrl } from "../pg/databases.ts";
import { pgUpgradeAcross } from "./pg-upgrade.ts";
import { at } from "./suites/fixtures.ts";

const TAG = "jobs_key_partial";

describe.skipIf(pgUrl() === null)("the migration of the jobs' key", () => {
	it("keeps a held key's uniqueness, and lets keyless jobs be many", async () => {
		await pgUpgradeAcross(
			TAG,
			async (client) => {
				// Rows as the adapter before the upgrade wrote them.
				await client.query(
					`insert into "jobs" ("kind", "payload", "key", "priority", "run_at", "attempts", "created_at")
				values ('kept', '{}', 'held', 0, $1, 0, $1), ('kept', '{}', null, 0, $1, 0, $1)`,
					[at(0).toISOString()],
				);
			},
			async ({ client, store: open }) => {
				const store = await open();
				// A key held before the upgrade still turns a second job away; keyless jobs are many.
				expect(await store.jobs.enqueue({ kind: "again", payload: {}, key: "held", runAt: at(1) }, at(1))).toBeNull();
				expect(await store.jobs.rescheduleByKey("held", at(5), at(2))).toBe("done");
				// And so does a key first held after it.
				expect(
					await store.jobs.enqueue({ kind: "fresh", payload: {}, key: "fresh", runAt: at(1) }, at(1)),
				).not.toBeNull();
				expect(await store.jobs.enqueue({ kind: "fresh", payload: {}, key: "fresh", runAt: at(1) }, at(1))).toBeNull();
				const keyless = await store.jobs.enqueue({ kind: "new", payload: {}, runAt: at(1) }, at(1));
				expect(keyless).toMatchObject({ kind: "new", key: null });
				expect(await store.jobs.enqueue({ kind: "new", payload: {}, runAt: at(1) }, at(1))).not.toBeNull();
				const { rows } = await client.query<{ n: string }>(`select count(*) as n from "jobs" where "key" is null`);
				expect(Number(rows[0]!.n)).toBe(3);
			},
		);
	});
});
