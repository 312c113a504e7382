import { type Background, createBackground } from "../../src/service/jobs/background.ts";
import type { JobContext } from "../../src/service/jobs/worker.ts";
import type { TestApp } from "./test-app.ts";

/** Runs the test app's job worker with a short poll, until `stop()`. */
export function startWorker(t: TestApp, options: { pollMs?: number } = {}): Background {
	const background = createBackground(t.service, { pollMs: options.pollMs ?? 20 });
	background.start();
	return background;
}

/** Polls `check` until it returns a value (bounded: `tries` tries, 25 ms apart; 5 s by default). */
export async function eventually<T>(
	check: () => Promise<T | null | undefined | false>,
	what = "condition",
	tries = 200,
): Promise<T> {
	for (let i = 0; i < tries; i++) {
		const value = await check();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error(`timed out waiting for ${what}`);
}

/** The context of a job handler called directly, outside a worker: nothing to complete. */
export function jobContext(): JobContext {
	return { signal: new AbortController().signal, completeIn: async () => {} };
}
