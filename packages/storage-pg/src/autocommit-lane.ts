import type { Socket } from "node:net";
import type pg from "pg";

/**
 * Statements written to the lane and not answered yet, past which a statement takes a pooled
 * connection instead: PostgreSQL runs the lane's statements one after the other on one backend,
 * so a deep queue means that backend is saturated (a pooled one runs in parallel) or that a
 * statement is waiting for a lock and holds the ones behind it.
 */
export const LANE_DEPTH = 16;

/**
 * A connection idle this long is closed, as the pool's are (node-postgres' `idleTimeoutMillis`):
 * one idle for hours may have been dropped on the way (a NAT's or a firewall's idle timeout)
 * without a word, and its next statement would wait for TCP to give up. The next statement
 * opens another.
 */
export const LANE_IDLE_MS = 10_000;

/**
 * One pipelined connection shared by the statements that run outside any transaction (the root
 * store's `Runner.query`: a message's steps, claims, counters, key reads). Each is atomic by
 * itself, so statements of different callers may share a connection and a write: the socket is
 * corked at the first statement of a turn of the event loop and uncorked in that turn's check
 * phase (setImmediate), so every statement the turn's I/O callbacks sent goes to PostgreSQL in
 * one write and one backend runs them back to back, instead of waking a pooled backend for each
 * (issue #20; performance-storage.md, "One connection for concurrent steps (stop 38)").
 *
 * PostgreSQL runs pipelined statements in the order written, each in its own implicit
 * transaction (node-postgres ends each with Sync): a failed statement does not touch the next.
 * A statement waiting for a row lock holds the ones behind it until the lock is released or
 * the statement_timeout ends it; past LANE_DEPTH unanswered statements, the next ones go to the
 * pool (`run`'s `otherwise`), so a wait or a saturated backend never queues more than that.
 */
export class AutocommitLane {
	private client: pg.Client | null = null;
	private connecting: Promise<pg.Client> | null = null;
	/** The connection whose socket is corked in this turn, if any. */
	private corked: pg.Client | null = null;
	private unanswered = 0;
	private closed = false;
	/** When the last statement was answered (Date.now()), and the timer that closes an idle connection. */
	private answeredAt = 0;
	private idleTimer: NodeJS.Timeout | null = null;

	/** `open` makes an unconnected client with `pipeline: true`. */
	constructor(
		private readonly open: () => pg.Client,
		private readonly idleMs = LANE_IDLE_MS,
	) {}

	/**
	 * Runs `send` (which must write its statement synchronously) on the lane's connection, or
	 * `otherwise` when LANE_DEPTH statements are already waiting there.
	 */
	async run<T>(send: (client: pg.Client) => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
		if (this.unanswered >= LANE_DEPTH) return otherwise();
		// Counted from here: statements waiting for the lane's connection to open count too.
		this.unanswered++;
		try {
			const client = this.client ?? (await this.connect());
			this.cork(client);
			return await send(client);
		} finally {
			this.unanswered--;
			if (this.unanswered === 0) this.idle();
		}
	}

	/** Ends the connection; statements after it are refused. */
	async close(): Promise<void> {
		this.closed = true;
		if (this.idleTimer) clearTimeout(this.idleTimer);
		const client = this.client ?? (await this.connecting?.catch(() => null));
		this.client = null;
		await client?.end().catch(() => {});
	}

	private connect(): Promise<pg.Client> {
		if (this.closed) return Promise.reject(new Error("storage-pg: the store is closed"));
		this.connecting ??= this.opened().finally(() => {
			this.connecting = null;
		});
		return this.connecting;
	}

	private async opened(): Promise<pg.Client> {
		const client = this.open();
		// A dropped connection (PostgreSQL restarted, the backend terminated) fails the statements
		// written to it, as node-postgres rejects them; the next statement opens another. Listening
		// also keeps an idle connection's 'error' from ending the process.
		const drop = () => {
			if (this.client === client) this.client = null;
		};
		client.on("error", drop);
		client.on("end", drop);
		try {
			await client.connect();
		} catch (error) {
			await client.end().catch(() => {});
			throw error;
		}
		if (this.closed) {
			await client.end().catch(() => {});
			throw new Error("storage-pg: the store is closed");
		}
		this.client = client;
		return client;
	}

	/** Nothing is waiting: the connection is closed once nothing was sent for `idleMs` (one timer at a time). */
	private idle(): void {
		this.answeredAt = Date.now();
		if (this.idleTimer || !this.client) return;
		const check = () => {
			this.idleTimer = null;
			if (this.unanswered > 0 || !this.client) return;
			const left = this.answeredAt + this.idleMs - Date.now();
			if (left > 0) {
				this.idleTimer = setTimeout(check, left).unref();
				return;
			}
			const client = this.client;
			this.client = null;
			client.end().catch(() => {});
		};
		this.idleTimer = setTimeout(check, this.idleMs).unref();
	}

	private cork(client: pg.Client): void {
		if (this.corked === client) return;
		const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
		stream.cork();
		this.corked = client;
		// The check phase comes after every I/O callback of this turn: their statements join the write.
		setImmediate(() => {
			if (this.corked === client) this.corked = null;
			stream.uncork();
		});
	}
}
