import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

export interface BackgroundCheckpointOptions {
	/** Pause between two checkpoints (ms); default 500. */
	intervalMs?: number;
	/** The thread starts this long after the store opens (ms), so short-lived stores never pay for it; default 1000. */
	startAfterMs?: number;
	/** WAL frames past which the thread makes the WAL start over; default 4000 (16 MiB of 4 KiB pages). */
	restartAtFrames?: number;
}

/**
 * WAL pages the connection lets accumulate before it checkpoints on its own (40 MiB of 4 KiB
 * pages): only reached if the thread falls far behind.
 */
const SAFETY_NET_PAGES = 10_000;
/** SQLite's default, restored when the thread cannot run. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/**
 * The pause between checkpoints. Each one that finds frames syncs the WAL and the database
 * and copies every page written since the last, however often that page was rewritten
 * meanwhile (a table's or an index's last leaf, the id sequences, the usage counters): every
 * 100 ms the thread took 0.25–0.28 ms of CPU per message at 25–35 messages/s, every 500 ms
 * 0.12 (docs/performance.md, "The receiver's last tenth (stop 30)"). The WAL holds what one
 * interval writes: ~3,000 frames at 300 messages/s, under RESTART_AT_FRAMES.
 */
const INTERVAL_MS = 500;

/**
 * WAL frames past which the thread also makes the WAL start over (RESTART), by default. Under a steady
 * stream of writes the WAL never starts over by itself: a writer restarts it only when it finds
 * every frame already checkpointed, and by then new frames have always come. It then grew to
 * the connection's safety net, whose checkpoint ran inside a commit on the event loop, stalls of
 * 3–12 ms about three times a second at 180 messages/s.
 */
const RESTART_AT_FRAMES = 4000;

// CommonJS, as eval'd workers are. A PASSIVE checkpoint neither waits for nor blocks readers
// and writers: it copies into the database the frames no reader still needs
// (https://www.sqlite.org/c3ref/wal_checkpoint_v2.html). Past restartAtFrames, a RESTART
// checkpoint copies the few frames written since and waits for no reader (busy_timeout 0), so
// the next writer starts the WAL from its beginning; it holds the write lock only for that copy,
// and writers on the event loop wait for it asynchronously (connection.ts). SQLITE_BUSY means
// another connection is checkpointing: the next tick tries again. Anything else ends the thread.
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 0");
setInterval(() => {
	try {
		const [{ log }] = db.pragma("wal_checkpoint(PASSIVE)");
		if (log >= workerData.restartAtFrames) db.pragma("wal_checkpoint(RESTART)");
	} catch (error) {
		if (String(error && error.code).startsWith("SQLITE_BUSY")) return;
		parentPort.postMessage(String(error && error.message));
		process.exit(1);
	}
}, workerData.intervalMs);
`;

/**
 * Checkpoints a WAL database from a thread of its own. Left to SQLite, the connection whose
 * commit crosses 1,000 WAL pages copies them into the database and syncs both files inside
 * that commit: under load, a stall of milliseconds on the event loop several times a second,
 * which every request in flight waits out. From a thread, the event loop never waits for a
 * checkpoint, and checkpoints come often enough to keep the WAL small. Should the thread fail,
 * the connection checkpoints itself again as before.
 */
export function startBackgroundCheckpoints(
	client: Database.Database,
	path: string,
	options: BackgroundCheckpointOptions = {},
): { stop(): Promise<void> } {
	client.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
	let stopped = false;
	let worker: Worker | null = null;
	const fallBack = () => {
		worker = null;
		if (!stopped && client.open) client.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
	};
	const timer = setTimeout(() => {
		worker = new Worker(WORKER_SOURCE, {
			eval: true,
			workerData: {
				driver: createRequire(import.meta.url).resolve("better-sqlite3"),
				path,
				intervalMs: options.intervalMs ?? INTERVAL_MS,
				restartAtFrames: options.restartAtFrames ?? RESTART_AT_FRAMES,
			},
		});
		worker.unref();
		worker.once("error", fallBack);
		worker.once("exit", fallBack);
	}, options.startAfterMs ?? 1000);
	timer.unref();
	return {
		async stop() {
			stopped = true;
			clearTimeout(timer);
			await worker?.terminate();
		},
	};
}
