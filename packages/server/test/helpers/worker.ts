import { type Background, createBackground } from "../../src/service/jobs/background.ts";
import type { JobContext } from "../../src/service/jobs/worker.ts";
import type { TestApp } from "./test-app.ts";

/** Runs the test app's job worker with a short poll, until `stop()`. */
export function startWorker(t: TestApp, options: { pollMs?: number } = {}): Background {
	const background = createBackground(t.service, { pollMs: options.pollMs ?? 20 });
	background.start();
	return background;
}

/**
 * Polls `check` every 25 ms until it returns a value. Bounded by time, generously (30 s by
 * default): on a loaded machine the awaited work is slow, and a tight bound would flake.
 */
export async function eventually<T>(
	check: () => Promise<T | null | undefined | false>,
	what = "condition",
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** The context of a job handler called directly, outside a worker: nothing to complete. */
export function jobContext(options: { leaseHeld?: boolean } = {}): JobContext {
	const lost = new AbortController();
	if (options.leaseHeld === false) lost.abort();
	return {
		signal: new AbortController().signal,
		leaseLost: lost.signal,
		confirmLease: async () => options.leaseHeld !== false,
		completeIn: async () => {},
		rescheduleIn: async () => {},
	};
}
