/**
 * Fresh PostgreSQL databases for tests, each a copy of a template on which the migrations
 * already ran (test/pg/template.ts): a new database costs a file copy, not a migration.
 *
 * Only `pg` here, not the storage adapter: every black-box file imports this module through
 * built-server.ts, and the adapter's sources (with all of @as2kit/core) took each of them
 * ~0.5 s of CPU to import for nothing (stop 32, docs/testing.md).
 */
import pg from "pg";
import { inject } from "vitest";
import { atFileEnd, finishBeforeFileEnds } from "../setup/file-end.ts";

/** The migrated database every test database is a copy of (made by test/pg/template.ts). */
export const TEMPLATE = "as2kit_template";
let counter = 0;

/** The test PostgreSQL's maintenance URL; null only outside CI on a machine without PostgreSQL. */
export function pgUrl(): string | null {
	return inject("pgUrl");
}

export interface TestDatabase {
	url: string;
	drop(): Promise<void>;
}

/**
 * A new database, migrated and empty; with `unmigrated`, without even the migrations.
 *
 * A process that asks for a second migrated database (a test file with one per test) is given
 * the next one made ahead, while its current test runs: creating one takes PostgreSQL 50-200 ms
 * (quiet to loaded machine), which a short test would otherwise wait for. `drop()` resolves at once and the database
 * goes in the background, finished before the test file ends (test/setup/file-end.ts).
 */
export async function createTestDatabase(options: { unmigrated?: boolean } = {}): Promise<TestDatabase> {
	const maintenanceUrl = pgUrl();
	if (!maintenanceUrl) throw new Error("no test PostgreSQL (see test/pg/global-setup.ts)");
	let name: string;
	if (options.unmigrated) name = await newDatabase(maintenanceUrl, "template0");
	else {
		const ready = madeAhead;
		madeAhead = null;
		name = (await ready?.catch(() => null)) ?? (await newDatabase(maintenanceUrl, TEMPLATE));
		migratedAskedFor += 1;
		if (migratedAskedFor >= 2) madeAhead = makeAhead(maintenanceUrl);
	}
	return {
		url: withDatabase(maintenanceUrl, name),
		drop: async () => dropLater(maintenanceUrl, name),
	};
}

let migratedAskedFor = 0;
/** The next migrated database of this process, made while the test that asked last runs. */
let madeAhead: Promise<string> | null = null;

function makeAhead(maintenanceUrl: string): Promise<string> {
	const made = newDatabase(maintenanceUrl, TEMPLATE);
	// One that failed is replaced when taken: createTestDatabase then makes one itself.
	made.catch(() => {});
	atFileEnd(async () => {
		if (madeAhead !== made) return;
		madeAhead = null;
		const name = await made.catch(() => null);
		if (name) await dropNow(maintenanceUrl, name);
	});
	return made;
}

async function newDatabase(maintenanceUrl: string, template: string): Promise<string> {
	const name = `as2kit_t${process.pid}_${++counter}`;
	await admin(maintenanceUrl, (client) => client.query(`create database ${name} template ${template}`));
	return name;
}

function dropLater(maintenanceUrl: string, name: string): void {
	finishBeforeFileEnds(dropNow(maintenanceUrl, name));
}

async function dropNow(maintenanceUrl: string, name: string): Promise<void> {
	await admin(maintenanceUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
}

export function withDatabase(url: string, database: string): string {
	const parsed = new URL(url);
	parsed.pathname = `/${database}`;
	return parsed.toString();
}

/** Runs `fn` on a client of `url`'s database, closed after it. */
export async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}
