import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

const T0 = new Date("2026-01-01T00:00:00.000Z");

/**
 * A claim reads the due jobs, then locks them (repositories/jobs.ts). Claimers on other
 * connections run in parallel here, one thread each (as processes sharing the file would):
 * a claimer whose read went stale must be refused and claim again, never take a job twice.
 * The threads load the built package (`npm test` builds first).
 */
const CLAIMER = `
const { workerData, parentPort } = require("node:worker_threads");
import(workerData.module).then(async ({ createSqliteStore }) => {
	const store = createSqliteStore({ url: workerData.url, backgroundCheckpoints: false, searchIndexing: false });
	// All threads start claiming together.
	parentPort.postMessage("ready");
	await new Promise((resolve) => parentPort.once("message", resolve));
	const claimed = [];
	for (let empty = 0, round = 0; empty < 3 && round < 10000; round++) {
		const jobs = await store.jobs.claim({ limit: 3, workerId: workerData.id, leaseMs: 600000, now: new Date(workerData.now) });
		if (jobs.length === 0) empty++;
		for (const job of jobs) {
			if (job.lockedBy !== workerData.id || job.attempts !== 1) throw new Error("a claimed job as another's");
			claimed.push(job.id);
		}
	}
	await store.close();
	parentPort.postMessage(claimed);
});
`;

it("claimers on parallel connections never take one job twice", async () => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-claims-"));
	const url = join(dir, "db.sqlite");
	const store = createSqliteStore({ url, backgroundCheckpoints: false });
	try {
		for (let i = 0; i < 3000; i++) await store.jobs.enqueue({ kind: "a", payload: { i }, runAt: T0 }, T0);
		const module = new URL("../dist/index.js", import.meta.url).href;
		const workers = ["w1", "w2", "w3"].map(
			(id) =>
				new Worker(CLAIMER, {
					eval: true,
					// Without the test runner's conditions, which would load the TypeScript sources.
					execArgv: [],
					workerData: { module, url, id, now: T0.getTime() },
				}),
		);
		const message = (worker: Worker) =>
			new Promise<unknown>((resolve, reject) => {
				worker.once("message", resolve);
				worker.once("error", reject);
				worker.once("exit", (code) => code !== 0 && reject(new Error(`claimer exited ${code}`)));
			});
		await Promise.all(workers.map(message));
		const finished = workers.map(message);
		for (const worker of workers) worker.postMessage("go");
		const results = (await Promise.all(finished)) as string[][];
		const all = results.flat();
		expect(all).toHaveLength(3000);
		expect(new Set(all).size).toBe(3000);
		// They did run side by side (on two cores, at least two of the three).
		expect(results.filter((claimed) => claimed.length > 0).length).toBeGreaterThanOrEqual(2);
		const held = await store.jobs.list();
		expect(held.every((job) => job.attempts === 1 && job.lockedBy !== null)).toBe(true);
	} finally {
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
});
