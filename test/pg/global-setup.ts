/**
 * vitest global setup: one PostgreSQL for the whole run. `PG_TEST_URL` (a role that may
 * create databases) is used when set; otherwise a throwaway cluster is started from the
 * machine's binaries and removed at the end. Under `CI` the PostgreSQL tests must run, so
 * a missing PostgreSQL fails the run instead of skipping them.
 *
 * vitest runs global setups once per project, in one process: the first project starts the
 * cluster and makes the template, the others share them, and the last teardown stops it.
 */
import type { TestProject } from "vitest/node";
import { findPostgresBin, startCluster } from "./cluster.mjs";
import { createTemplate } from "./template.ts";

declare module "vitest" {
	export interface ProvidedContext {
		/** The maintenance URL of the test PostgreSQL, or null when there is none (never under CI). */
		pgUrl: string | null;
	}
}

interface RunPostgres {
	url: Promise<string | null>;
	stop(): void;
	users: number;
}

const SHARED = Symbol.for("as2kit.test.run-postgres");
const shared = globalThis as { [SHARED]?: RunPostgres };

export default async function setup(project: TestProject): Promise<() => void> {
	let run = shared[SHARED];
	if (!run) {
		const started: RunPostgres = { url: Promise.resolve(null), stop: () => {}, users: 0 };
		started.url = start(started);
		run = shared[SHARED] = started;
	}
	run.users += 1;
	const teardown = () => {
		run.users -= 1;
		if (run.users > 0) return;
		delete shared[SHARED];
		run.stop();
	};
	try {
		project.provide("pgUrl", await run.url);
	} catch (error) {
		teardown();
		throw error;
	}
	return teardown;
}

async function start(run: RunPostgres): Promise<string | null> {
	let url = process.env.PG_TEST_URL ?? null;
	if (!url) {
		const bin = findPostgresBin();
		if (!bin) {
			if (process.env.CI) throw new Error("CI is set but PostgreSQL is not installed: .ci/run installs it");
			return null;
		}
		const cluster = await startCluster(bin);
		url = cluster.url;
		run.stop = () => cluster.stop();
	}
	await createTemplate(url);
	return url;
}
