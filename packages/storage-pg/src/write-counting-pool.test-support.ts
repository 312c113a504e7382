/**
 * A pool as create-store.ts makes it, with one connection (so every test reuses it), that counts
 * the writes to PostgreSQL's socket: each is one `write`/`writev` system call, the figure the
 * transaction's wire is built to keep low (connection.ts, TransactionWire).
 */
import pg from "pg";

export function writeCountingPool(url: string): {
	pool: pg.Pool;
	/** The writes `fn` makes, counted once a connection is open (the pool's first connect writes too). */
	writesOf: (fn: () => Promise<unknown>) => Promise<number>;
} {
	let writes = 0;
	const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true });
	pool.on("connect", (client) =>
		countWrites(client, () => {
			writes += 1;
		}),
	);
	return {
		pool,
		async writesOf(fn) {
			await pool.query("select 1");
			const before = writes;
			await fn();
			return writes - before;
		},
	};
}

/** Calls `counted` for every write to `client`'s socket: each is one `write`/`writev` system call. */
export function countWrites(client: pg.Client, counted: () => void): void {
	const stream = client.connection.stream as unknown as Record<"_write" | "_writev", (...args: unknown[]) => unknown>;
	for (const method of ["_write", "_writev"] as const) {
		const original = stream[method].bind(stream);
		stream[method] = (...args: unknown[]) => {
			counted();
			return original(...args);
		};
	}
}
