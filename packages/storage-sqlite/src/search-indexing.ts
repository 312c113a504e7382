import type Database from "better-sqlite3";
import type { Exec } from "./connection.ts";

export interface SearchIndexingOptions {
	/** Pause between two batches when the queue is empty (ms); default 500. */
	intervalMs?: number;
}

/**
 * Messages one background batch indexes at most: 30–50 µs each, so ≤ 5 ms on the event loop
 * (a request arriving meanwhile waits for it); a longer queue is drained batch after batch,
 * other callbacks running in between.
 */
const BATCH = 100;

/**
 * The pause between batches. A batch costs 400–550 µs of CPU whatever its size (its FTS5
 * segment, the merges that segment brings, its commit) and 25–30 µs a message: every 100 ms,
 * at the benchmark's 35–140 messages/s, that was 65–150 µs a message; every 500 ms, 35–55 µs
 * (docs/performance.md, "The receiver's last tenth (stop 30)"). Searches do not wait for it:
 * a search indexes what is still queued before it runs (message-list.ts).
 */
const INTERVAL_MS = 500;

/**
 * Moves messages from message_search_pending into the search index (migration 0008), at most
 * `limit`, oldest first, and returns how many. Call it inside a transaction: the keys, the
 * index entries and the queue's deletion commit together, so two connections never index a
 * message twice. Each message takes the next free key of its millisecond (migration 0006), so
 * keys keep the list's order.
 */
export function indexPendingMessages(client: Database.Database, limit = Number.MAX_SAFE_INTEGER): number {
	const pending = client
		.prepare(
			`SELECT p.seq, m.id, m.created_at AS createdAt, m.tenant_id AS tenantId, m.subject, m.message_id AS messageId
			FROM message_search_pending p LEFT JOIN messages m ON m.id = p.message_pk ORDER BY p.seq LIMIT ?`,
		)
		.all(limit) as Array<{
		seq: number;
		id: string | null;
		createdAt: number;
		tenantId: string;
		subject: string | null;
		messageId: string;
	}>;
	if (pending.length === 0) return 0;
	// Keys are about 2^60: beyond a double's integers, so they stay BigInt on their way back. The
	// key is `row`, the rowid, read back as the last insert's: RETURNING and an INSERT … SELECT
	// (a multi-row write, with its statement journal) cost twice this (4.3 against 2.1 µs).
	const key = client.prepare(
		`INSERT INTO message_search_rows (row, message_pk, tenant_id) VALUES ((
			SELECT coalesce(max(row) + 1, @createdAt * 1048576) FROM message_search_rows
			WHERE row >= @createdAt * 1048576 AND row < (@createdAt + 1) * 1048576
		), @id, @tenantId)`,
	);
	key.safeIntegers(true);
	const index = client.prepare("INSERT INTO message_search (rowid, subject, message_id) VALUES (?, ?, ?)");
	// The delete trigger takes a deleted message out of the queue; a row left without its
	// message (none should be) is simply dropped with the batch.
	const messages = pending.filter((message) => message.id !== null);
	// Every key first, then every index entry. A statement that writes another table opens a
	// savepoint, and FTS5 writes out the terms it holds at each savepoint: keys and entries taken
	// in turn wrote one FTS5 segment per message (and merged them), not one per batch.
	const rows = messages.map(
		(message) =>
			key.run({ createdAt: message.createdAt, id: message.id, tenantId: message.tenantId }).lastInsertRowid as bigint,
	);
	for (const [i, message] of messages.entries()) index.run(rows[i], message.subject, message.messageId);
	client.prepare("DELETE FROM message_search_pending WHERE seq <= ?").run(pending.at(-1)!.seq);
	return pending.length;
}

/**
 * Indexes new messages for search in batches on a timer: one FTS5 segment per batch rather
 * than per message (an insert used to spend ~90 µs of its own transaction on it). The timer
 * does not keep the process alive; a search indexes what is still queued before it runs
 * (message-list.ts), so a stopped or failing indexer costs only time, never a missed message.
 */
export function startBackgroundSearchIndexing(
	exec: Exec,
	options: SearchIndexingOptions = {},
): { stop(): Promise<void> } {
	const intervalMs = options.intervalMs ?? INTERVAL_MS;
	let stopped = false;
	let timer: NodeJS.Timeout | null = null;
	let running: Promise<void> = Promise.resolve();
	const schedule = (delayMs: number) => {
		if (stopped) return;
		timer = setTimeout(() => {
			running = exec((db) => indexPendingMessages(db.$client, BATCH)).then(
				(indexed) => schedule(indexed === BATCH ? 0 : intervalMs),
				// Another connection held the lock past the busy timeout, or the database closed
				// under us: the queue stays as it was, for the next batch or the next search.
				() => schedule(intervalMs),
			);
		}, delayMs);
		timer.unref();
	};
	schedule(intervalMs);
	return {
		async stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
			await running;
		},
	};
}
