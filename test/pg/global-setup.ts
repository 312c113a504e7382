/**
 * vitest global setup: one PostgreSQL for the whole run. `PG_TEST_URL` (a role that may
 * create databases) is used when set; otherwise a throwaway cluster is started from the
 * machine's binaries and removed at the end. Under `CI` the PostgreSQL tests must run, so
 * a missing PostgreSQL fails the run instead of skipping them.
 */
import type { TestProject } from "vitest/node";
import { findPostgresBin, startCluster } from "./cluster.mjs";
import { createTemplate } from "./databases.ts";

declare module "vitest" {
	export interface ProvidedContext {
		/** The maintenance URL of the test PostgreSQL, or null when there is none (never under CI). */
		pgUrl: string | null;
	}
}

export default async function setup(project: TestProject): Promise<() => void> {
	let url = process.env.PG_TEST_URL ?? null;
	let stop = () => {};
	if (!url) {
		const bin = findPostgresBin();
		if (!bin) {
			if (process.env.CI) throw new Error("CI is set but PostgreSQL is not installed: .ci/run installs it");
			project.provide("pgUrl", null);
			return stop;
		}
		const cluster = await startCluster(bin);
		url = cluster.url;
		stop = () => cluster.stop();
	}
	try {
		await createTemplate(url);
	} catch (error) {
		stop();
		throw error;
	}
	project.provide("pgUrl", url);
	return stop;
}
