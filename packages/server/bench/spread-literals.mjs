// What an object literal that starts with a spread costs on this Node, by its shape (issue #20,
// docs/performance.md "The service per message (stop 31)"): V8 11.3 (Node 20) leaves the
// clone's fast path as soon as such a literal goes on with a property or a second spread.
// CPU time per literal, same process, the shapes interleaved, median and min–max of 7 rounds:
//
//   node packages/server/bench/spread-literals.mjs
const keys = (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
const shapes = [];
for (const n of [5, 10, 21]) {
	const base = keys(n);
	const extra = { e: 1 };
	shapes.push(
		[`{ ...base } (${n} keys)`, () => ({ ...base })],
		[`{ ...base, e } (${n} keys)`, () => ({ ...base, e: 1 })],
		[`{ ...base, ...extra } (${n} keys)`, () => ({ ...base, ...extra })],
		[`{ e, ...base } (${n} keys)`, () => ({ e: 1, ...base })],
		[`Object.assign({}, base, { e }) (${n} keys)`, () => Object.assign({}, base, { e: 1 })],
	);
}
const N = 100_000;
const rounds = 7;
let sink = 0;
const times = new Map(shapes.map(([name]) => [name, []]));
for (const [, make] of shapes) for (let i = 0; i < 20_000; i++) sink += make() ? 1 : 0;
for (let round = 0; round < rounds; round++) {
	for (const [name, make] of shapes) {
		const start = process.cpuUsage();
		for (let i = 0; i < N; i++) sink += make() ? 1 : 0;
		const used = process.cpuUsage(start);
		times.get(name).push(((used.user + used.system) * 1000) / N);
	}
}
console.log(`node ${process.version}, V8 ${process.versions.v8}; ns of CPU per literal, median (min–max) of ${rounds}`);
for (const [name, list] of times) {
	const sorted = [...list].sort((a, b) => a - b);
	const median = sorted[sorted.length >> 1];
	console.log(
		`${name.padEnd(44)} ${median.toFixed(0).padStart(6)} (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)})`,
	);
}
if (sink === 0) console.log("");
