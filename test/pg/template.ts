/**
 * The template database of the test PostgreSQL: created (again) and migrated once per test run
 * by test/pg/global-setup.ts; test/pg/databases.ts copies it for each test database.
 */
// A relative import: vitest resolves the global setup without the "dev-source" condition.
import { createPgStore } from "../../packages/storage-pg/src/index.ts";
import { admin, TEMPLATE, withDatabase } from "./databases.ts";

/** Creates (again) the template database and migrates it. Runs once per test run. */
export async function createTemplate(maintenanceUrl: string): Promise<void> {
	await admin(maintenanceUrl, async (client) => {
		await client.query(`drop database if exists ${TEMPLATE} with (force)`);
		await client.query(`create database ${TEMPLATE}`);
	});
	const store = await createPgStore({ url: withDatabase(maintenanceUrl, TEMPLATE), poolSize: 1 });
	await store.close();
}
