// The categories of issue #20's profiles, shared by profile-categories.mjs (V8's sampler, wall
// time) and perf-categories.mjs (perf's cpu-clock samples, CPU time): a frame's source file from
// its line in a dist/ bundle, and the rules that say what a frame's work is for.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const regions = new Map();
/** `packages/<pkg>/src/<file>` for a line of a bundle in dist/, from its region comments. */
export function sourceOf(url, line) {
	if (!url.startsWith("file://") || url.includes("/node_modules/")) return url;
	const path = fileURLToPath(url);
	let marks = regions.get(path);
	if (!marks) {
		marks = [];
		try {
			readFileSync(path, "utf8")
				.split("\n")
				.forEach((text, index) => {
					const match = /^\/\/ (src\/\S+)$/.exec(text);
					if (match) marks.push([index, match[1]]);
				});
		} catch {}
		regions.set(path, marks);
	}
	const pkg = /\/packages\/([^/]+)\//.exec(path)?.[1] ?? "?";
	// A bench script (floor.mjs: the platform's floor) is its own source, not a bundle.
	const bench = /\/packages\/[^/]+\/(bench\/[^/]+)$/.exec(path)?.[1];
	if (bench) return `${pkg}/${bench}`;
	let source = "dist";
	for (const [from, file] of marks) {
		if (from > line) break;
		source = file;
	}
	return `${pkg}/${source}`;
}

/**
 * The category of one frame, or null when the frame is generic plumbing (its caller decides).
 * Order matters: the first rule that matches wins.
 */
/** node-postgres and its parts (protocol, pool, type parsers). */
export const PG_DRIVER =
	/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-(date|array|bytea|interval))\//;

export const rules = [
	["GC", (f, _s) => f === "(garbage collector)"],
	["idle", (f) => f === "(idle)"],
	["V8 (program)", (f) => f === "(program)"],
	// node-postgres itself: building and writing messages, parsing answers, its type parsers.
	["pg driver", (_f, s) => PG_DRIVER.test(s)],
	["SQL BEGIN/COMMIT", (f, s) => /^storage-sqlite\/src\/connection\.ts/.test(s) && /transaction|atomically/.test(f)],
	[
		"job claim/complete",
		(_f, s) => /storage-\w+\/src\/repositories\/(jobs|job-depth)\.ts|server\/src\/service\/jobs\//.test(s),
	],
	[
		"events + webhook fan-out",
		(_f, s) =>
			/storage-\w+\/src\/repositories\/(events|webhook-\w+)\.ts|server\/src\/service\/(events\.ts|webhooks\/)/.test(s),
	],
	["SQL statements", (_f, s) => /storage-(sqlite|pg)\/|better-sqlite3|drizzle-orm|node_modules\/pg/.test(s)],
	["logging", (_f, s) => /node_modules\/(pino|sonic-boom|thread-stream)|server\/src\/service\/telemetry\.ts/.test(s)],
	["metrics", (_f, s) => /node_modules\/prom-client|server\/src\/http\/(metrics|service-metrics)\.ts/.test(s)],
	[
		"JSON/validation",
		(f, s) =>
			/node_modules\/(valibot|@hono\/standard-validator)|server\/src\/http\/(schemas|body|field-errors|body-shape)/.test(
				s,
			) ||
			(s === "" && /^(parse|stringify)$/.test(f)),
	],
	[
		"CMS/crypto (incl. zlib)",
		(f, s) =>
			/^node:(internal\/crypto|crypto|zlib)|as2-core\/src\/(cms|crypto|asn1|certs)\//.test(s) ||
			(s === "" && /^(signOneShot|verifyOneShot|Hash|Hmac|Cipher|Decipher)/.test(f)),
	],
	["MIME", (_f, s) => /as2-core\/src\/(mime|as2|mdn|bytes)\//.test(s)],
	["payload files", (f, s) => /server\/src\/blobs\//.test(s) || (s === "server/bench/floor.mjs" && f === "putFile")],
	[
		"wire capture + attempts",
		(_f, s) =>
			/server\/src\/service\/messages\/(attempt|attempts)/.test(s) ||
			/server\/src\/service\/transport\/transport-trace/.test(s),
	],
	[
		"HTTP/TLS",
		(_f, s) =>
			/^node:(_http|http|https|_tls|tls|net|internal\/(http|tls|stream_base_commons|net))|@hono\/node-server|node_modules\/hono\/|server\/src\/(http|node)\/|server\/src\/service\/transport\//.test(
				s,
			),
	],
	["message steps (service)", (_f, s) => /server\/src\/service\//.test(s)],
];
