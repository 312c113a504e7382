// What a run wrote to PostgreSQL, per message, from the server's own statistics: rows inserted,
// updated (and how many of those updates were HOT: no index touched, the new version on the
// same page) and deleted per table, and WAL bytes (the whole cluster's: autovacuum's too, if it
// ran). Counts, not timings: they do not move with the machine's load. BENCH_PG_STATS=1 in
// instances.mjs prints them for each PostgreSQL run.
import pg from "pg";

const TABLES = ["messages", "jobs", "events", "message_attempts", "usage_counters"];

/** A snapshot of the tables' counters and the WAL position of the database at `url`. */
export async function pgTableStats(url) {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		const { rows } = await client.query(
			`select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del from pg_stat_user_tables where relname = any($1)`,
			[TABLES],
		);
		const { rows: wal } = await client.query("select pg_current_wal_lsn()::text as lsn");
		return { tables: Object.fromEntries(rows.map((r) => [r.relname, r])), lsn: wal[0].lsn };
	} finally {
		await client.end();
	}
}

const bytesOf = (lsn) => {
	const [high, low] = lsn.split("/").map((part) => BigInt(`0x${part}`));
	return Number((high << 32n) + low);
};

/**
 * One line per table of what happened between two snapshots, per message. A backend reports its
 * counters when it goes idle (at most once a second) and when it exits: take `after` once the
 * senders have stopped.
 */
export function describeStats(before, after, messages) {
	const per = (n) => (n / messages).toFixed(2);
	const lines = [`WAL ${((bytesOf(after.lsn) - bytesOf(before.lsn)) / messages / 1024).toFixed(1)} KiB a message`];
	for (const name of TABLES) {
		const a = after.tables[name];
		const b = before.tables[name] ?? { n_tup_ins: 0, n_tup_upd: 0, n_tup_hot_upd: 0, n_tup_del: 0 };
		if (!a) continue;
		const upd = a.n_tup_upd - b.n_tup_upd;
		const hot = a.n_tup_hot_upd - b.n_tup_hot_upd;
		lines.push(
			`${name}: inserted ${per(a.n_tup_ins - b.n_tup_ins)}, updated ${per(upd)} (HOT ${upd ? ((100 * hot) / upd).toFixed(0) : "-"} %), deleted ${per(a.n_tup_del - b.n_tup_del)}`,
		);
	}
	return lines;
}
