// A live message's usage counters (`live_messages`, `live_bytes`: limits.ts `incrementMany`) in
// the server's shape: raw better-sqlite3 with the adapter's pragmas (temp_store MEMORY included),
// BEGIN IMMEDIATE, four members a commit, each in a SAVEPOINT with one other insert. CPU µs per
// message beyond the same loop without the counters, 7 rounds of 20,000, the forms rotating:
//   two single-row upserts with RETURNING (the adapter's), one two-row upsert with RETURNING, and
//   the upsert whose total the service reads (live_messages) with RETURNING + the other without.
//
//   node packages/storage-sqlite/bench/usage-counters.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const Database = createRequire(import.meta.url)("better-sqlite3");
const dir = mkdtempSync(join(tmpdir(), "as2kit-usage-"));
const db = new Database(join(dir, "db.sqlite"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("cache_size = -65536");
db.pragma("temp_store = MEMORY");
db.exec(`create table usage_counters (account_id text not null, period text not null, metric text not null, value integer not null, primary key (account_id, period, metric));
create table filler (id integer primary key, v text)`);
const ONE = db.prepare(
	`insert into "usage_counters" ("account_id", "period", "metric", "value") values (?, ?, ?, ?) on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + ? returning "value"`,
);
const ONE_PLAIN = db.prepare(
	`insert into "usage_counters" ("account_id", "period", "metric", "value") values (?, ?, ?, ?) on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + excluded."value"`,
);
const TWO = db.prepare(
	`insert into "usage_counters" ("account_id", "period", "metric", "value") values (?, ?, ?, ?), (?, ?, ?, ?) on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + excluded."value" returning "metric", "value"`,
);
const filler = db.prepare("insert into filler (v) values (?)");
const begin = db.prepare("BEGIN IMMEDIATE"),
	commit = db.prepare("COMMIT"),
	sp = db.prepare("SAVEPOINT member"),
	rel = db.prepare("RELEASE member");
const forms = {
	none: () => {},
	"two single-row upserts, RETURNING (main)": () => {
		ONE.get("acc_1", "2026-11", "live_messages", 1, 1);
		ONE.get("acc_1", "2026-11", "live_bytes", 10240, 10240);
	},
	"one two-row upsert, RETURNING": () => {
		TWO.all("acc_1", "2026-11", "live_messages", 1, "acc_1", "2026-11", "live_bytes", 10240);
	},
	"upsert RETURNING + upsert without": () => {
		ONE.get("acc_1", "2026-11", "live_messages", 1, 1);
		ONE_PLAIN.run("acc_1", "2026-11", "live_bytes", 10240);
	},
};
const N = 20000,
	names = Object.keys(forms),
	res = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < 7; round++)
	for (let k = 0; k < names.length; k++) {
		const name = names[(k + round) % names.length],
			f = forms[name];
		const t = process.cpuUsage();
		for (let i = 0; i < N; i += 4) {
			begin.run();
			for (let m = 0; m < 4; m++) {
				if (m) sp.run();
				filler.run("x");
				f();
				if (m) rel.run();
			}
			commit.run();
		}
		const u = process.cpuUsage(t);
		res[name].push((u.user + u.system) / N);
	}
const med = (xs) => [...xs].sort((a, b) => a - b)[3];
for (const n of names)
	console.log(
		n.padEnd(44),
		"median",
		(med(res[n]) - med(res.none)).toFixed(2),
		"µs beyond none; rounds",
		res[n].map((x) => (x - med(res.none)).toFixed(1)).join(" "),
	);
db.close();
rmSync(dir, { recursive: true, force: true });
