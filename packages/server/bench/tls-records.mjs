// Socket reads and writes of strace traces, by listener and direction, with their sizes and how
// many hold exactly one TLS record (issue #20, "The sender's HTTP work (stop 34)"): whether a
// side writes a head apart from its body, an answer in two writes, or reads a body in more
// chunks. The traces need the first bytes of each call (a TLS record starts `17 03 03` and its
// length) and the descriptors' addresses:
//
//   AS2_ALLOW_PRIVATE_TARGETS=1 BENCH_MESSAGES=300 BENCH_STRACE_BYTES=64 BENCH_STRACE_DIR=dir \
//     node packages/server/bench/syscalls.mjs
//   strace -f -ff -qq -yy -xx -s 64 -o dir/floor env FLOOR_VARIANTS=full FLOOR_RUNS=1 FLOOR_MESSAGES=300 \
//     node packages/server/bench/floor.mjs
//   node packages/server/bench/tls-records.mjs dir/sender.txt [dir/floor.*]
//
// A connection's listener is the port several of its connections share; a call on the
// listener's side is the server's, the other the client's.
import { readFileSync } from "node:fs";

const call =
	/^(?:\d+\s+)?(write|writev|read|readv|sendmsg|recvmsg)\(\d+<TCP(?:v6)?:\[([^\]]+)\]>, "((?:\\x[0-9a-f]{2})*)[^)]*\) = (\d+)$/;
const ports = (connection) => connection.split("->").map((end) => Number(end.split(":").pop()));

for (const file of process.argv.slice(2)) {
	const calls = [];
	const seen = new Map();
	for (const line of readFileSync(file, "utf8").split("\n")) {
		const match = call.exec(line);
		if (!match || match[4] === "0") continue;
		const [, name, connection, hex, bytes] = match;
		calls.push({ name, connection, hex, bytes: Number(bytes) });
		for (const port of ports(connection)) {
			const connections = seen.get(port) ?? new Set();
			connections.add(connection);
			seen.set(port, connections);
		}
	}
	if (calls.length === 0) continue;
	const rows = new Map();
	for (const c of calls) {
		const [local, remote] = ports(c.connection);
		const serving = (seen.get(local)?.size ?? 0) >= (seen.get(remote)?.size ?? 0);
		const key = `${c.name}, ${serving ? `serving :${local}` : `client of :${remote}`}`;
		const row = rows.get(key) ?? { calls: 0, bytes: 0, oneRecord: 0, sizes: new Map() };
		const head = (c.hex.match(/\\x[0-9a-f]{2}/g) ?? []).map((h) => Number.parseInt(h.slice(2), 16));
		row.calls++;
		row.bytes += c.bytes;
		if (head.length >= 5 && ((head[3] << 8) | head[4]) + 5 === c.bytes) row.oneRecord++;
		row.sizes.set(c.bytes, (row.sizes.get(c.bytes) ?? 0) + 1);
		rows.set(key, row);
	}
	console.log(file);
	for (const [key, row] of [...rows].sort()) {
		const sizes = [...row.sizes]
			.sort((a, b) => b[1] - a[1])
			.slice(0, 4)
			.map(([size, n]) => `${size} B × ${n}`)
			.join(", ");
		console.log(`  ${key}: ${row.calls} calls, ${row.oneRecord} of them one TLS record; ${sizes}`);
	}
}
