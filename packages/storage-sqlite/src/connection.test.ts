import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { busyPauseMs } from "./connection.ts";
import { createSqliteStore } from "./create-store.ts";

const T0 = new Date("2026-01-01T00:00:00.000Z");

it("two connections in one process wait for each other's write lock without blocking the event loop", async () => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-connections-"));
	const url = join(dir, "db.sqlite");
	const a = createSqliteStore({ url });
	const b = createSqliteStore({ url });
	try {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let locked!: () => void;
		const holdsLock = new Promise<void>((resolve) => {
			locked = resolve;
		});
		// A holds the write lock across awaits, as an async transaction does …
		const holding = a.transaction(async (tx) => {
			await tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0);
			locked();
			await gate;
			await tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0);
		});
		await holdsLock;
		// … while B writes alone and in a transaction of its own. Waiting synchronously for the
		// lock would freeze this process, so A could never reach COMMIT.
		const lone = b.jobs.enqueue({ kind: "b", payload: {}, runAt: T0 }, T0);
		const inTransaction = b.transaction((tx) => tx.jobs.enqueue({ kind: "b", payload: {}, runAt: T0 }, T0));
		await new Promise((resolve) => setTimeout(resolve, 50));
		release();
		await Promise.all([holding, lone, inTransaction]);
		expect((await a.jobs.list()).map((j) => j.kind).sort()).toEqual(["a", "a", "b", "b"]);
	} finally {
		await a.close();
		await b.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

it("gives up with SQLITE_BUSY once the busy timeout has passed", async () => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-connections-"));
	const url = join(dir, "db.sqlite");
	const a = createSqliteStore({ url });
	const b = createSqliteStore({ url, busyTimeoutMs: 30 });
	try {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let locked!: () => void;
		const holdsLock = new Promise<void>((resolve) => {
			locked = resolve;
		});
		const holding = a.transaction(async (tx) => {
			await tx.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0);
			locked();
			await gate;
		});
		await holdsLock;
		const error = await b.jobs.enqueue({ kind: "b", payload: {}, runAt: T0 }, T0).catch((e: unknown) => e);
		release();
		await holding;
		expect((error as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
		expect((await b.jobs.list()).map((j) => j.kind)).toEqual(["a"]);
	} finally {
		await a.close();
		await b.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

it("pauses at most 3 ms between two tries of a locked write, however long the lock is held", () => {
	// A lock held 10 ms by the checkpoint thread is seen free within a pause of its release: the
	// pause no longer doubles past the holder's time (it reached 30 ms).
	const pauses = Array.from({ length: 200 }, (_, retry) => [busyPauseMs(retry, 0), busyPauseMs(retry, 0.999)]).flat();
	expect(Math.max(...pauses)).toBeLessThanOrEqual(3);
	expect(Math.min(...pauses)).toBeGreaterThan(0);
	expect(busyPauseMs(0, 0.5)).toBe(0.5);
	// About 2 ms on average: a wait of the whole default busy timeout (5 s) costs ~2,500 failed
	// BEGIN IMMEDIATEs of microseconds each.
	const mean = pauses.reduce((sum, pause) => sum + pause, 0) / pauses.length;
	expect(mean).toBeGreaterThan(1);
	expect(mean).toBeLessThan(3);
});
