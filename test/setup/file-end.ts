/**
 * Work a test helper leaves to the end of the test file (dropping a test database): its worker
 * process exits after the file, and work still running then would be cut off (a database left
 * on a PG_TEST_URL server). test/setup/remove-scratch-dirs.ts settles it after each test file.
 */
const pending = new Set<Promise<unknown>>();
const atEnd: (() => Promise<unknown>)[] = [];

/** Lets `work` run on without waiting for it; the end of the test file waits for it. */
export function finishBeforeFileEnds(work: Promise<unknown>): void {
	const tracked = work.finally(() => pending.delete(tracked));
	pending.add(tracked);
}

/** Runs `cleanUp` when the test file ends. */
export function atFileEnd(cleanUp: () => Promise<unknown>): void {
	atEnd.push(cleanUp);
}

/** Runs the `atFileEnd` clean-ups and waits for them and all `finishBeforeFileEnds` work. */
export async function settleBackgroundWork(): Promise<void> {
	for (const cleanUp of atEnd.splice(0)) finishBeforeFileEnds(cleanUp());
	while (pending.size > 0) await Promise.all([...pending]);
}
