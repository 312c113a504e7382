import { sql } from "drizzle-orm";
import type { Db } from "../connection.ts";

/**
 * Takes the account's plan-limit lock until the transaction ends. The service counts an
 * account's partners or uploaded certificates and then inserts one (plan limits); SQLite's
 * single writer serialized that, here two instances at READ COMMITTED would both count below
 * the limit and both insert. Counting under this lock makes the second wait for the first to
 * commit, and then count what it inserted. Partners and certificates share the key: a
 * transaction may count both.
 */
export async function lockPlanLimits(db: Db, accountId: string): Promise<void> {
	await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`plan-limit:${accountId}`}))`);
}
