/**
 * Fresh PostgreSQL databases for tests, each a copy of a template on which the migrations
 * already ran: a new database costs a file copy, not a migration.
 */
// A relative import: vitest resolves the global setup without the "dev-source" condition.

import pg from "pg";
import { inject } from "vitest";
import { createPgStore } from "../../packages/storage-pg/src/index.ts";

const TEMPLATE = "as2kit_template";
let counter = 0;

/** Creates (again) the template database and migrates it. Runs once per test run. */
export async function createTemplate(maintenanceUrl: string): Promise<void> {
	await admin(maintenanceUrl, async (client) => {
		await client.query(`drop database if exists ${TEMPLATE} with (force)`);
		await client.query(`create database ${TEMPLATE}`);
	});
	const store = await createPgStore({ url: withDatabase(maintenanceUrl, TEMPLATE), poolSize: 1 });
	await store.close();
}

/** The test PostgreSQL's maintenance URL; null only outside CI on a machine without PostgreSQL. */
export function pgUrl(): string | null {
	return inject("pgUrl");
}

export interface TestDatabase {
	url: string;
	drop(): Promise<void>;
}

/** A new database, migrated and empty; with `unmigrated`, without even the migrations. */
export async function createTestDatabase(options: { unmigrated?: boolean } = {}): Promise<TestDatabase> {
	const maintenanceUrl = pgUrl();
	if (!maintenanceUrl) throw new Error("no test PostgreSQL (see test/pg/global-setup.ts)");
	const name = `as2kit_t${process.pid}_${++counter}`;
	const template = options.unmigrated ? "template0" : TEMPLATE;
	await admin(maintenanceUrl, (client) => client.query(`create database ${name} template ${template}`));
	return {
		url: withDatabase(maintenanceUrl, name),
		drop: async () => {
			await admin(maintenanceUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
		},
	};
}

export function withDatabase(url: string, database: string): string {
	const parsed = new URL(url);
	parsed.pathname = `/${database}`;
	return parsed.toString();
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}
