/**
 * Issue #17, "The core on every JavaScript runtime": the built @as2kit/core runs the same
 * round-trip suite (test/runtimes/roundtrip-suite.mjs: every signing digest and scheme, every
 * content cipher with RSA and each OAEP key transport, compression either side of the signature, and
 * a streamed 50 MiB payload, each confirmed by a verified signed MDN) on Node 20 (the project's),
 * Node 22 and 24 (installed on first use: node-versions.mjs), Bun, Deno and Cloudflare workerd
 * (nodejs_compat, from root optionalDependencies as Bun and Deno).
 *
 * What a runtime lacks is not skipped: its case must fail with UNSUPPORTED_ALGORITHM (see
 * packages/as2-core/README.md, "Runtimes"), and every other case must pass.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "../setup/scratch-dirs.ts";
import {
	type Keys,
	makeKeys,
	prepareRuntime,
	RUNTIME_BINARIES_HERE,
	RUNTIMES,
	type Runtime,
	runOnRuntime,
	runtimeVersion,
} from "./harness.mjs";
import { INSTALL_TIMEOUT_MS } from "./node-versions.mjs";
import { suiteCases } from "./roundtrip-suite.mjs";

const BIG_BYTES = 50 * 2 ** 20;
const BIG_CASE = "stream-50MiB";
/** A streamed payload must not be held whole, let alone in the copies each layer would make. */
const PEAK_RSS_LIMIT = 320 * 2 ** 20;
const RUN_TIMEOUT_MS = 240_000;

/** What each runtime's node:crypto cannot do, and the As2Error code the core answers with. */
const UNSUPPORTED: Record<Runtime, Record<string, string>> = {
	node: {},
	node22: {},
	node24: {},
	bun: {},
	// Deno 2.9 cannot make aes-192-cbc: the core builds it on aes-192-ecb (cbc-over-ecb.ts).
	deno: {},
	// workerd: sign() takes no KeyObject beside a padding option, and signs PKCS#1 v1.5 when
	// given PSS padding with a PEM key.
	workerd: { "sign-sha256-pss": "UNSUPPORTED_ALGORITHM" },
};

let dir: string;
let keys: Keys;

beforeAll(() => {
	// Removed after this file by test/setup/remove-scratch-dirs.ts.
	dir = scratchDir("as2kit-runtimes-");
	keys = makeKeys(dir);
});

// Off linux-x64 (outside CI) the other runtimes' packages are not installed: Node only.
const RUNTIMES_HERE = RUNTIME_BINARIES_HERE ? RUNTIMES : RUNTIMES.filter((runtime) => runtime === "node");

describe.each(RUNTIMES_HERE)("@as2kit/core on %s", (runtime) => {
	it(
		"passes every round trip it supports, and refuses the rest with an As2Error",
		async (ctx) => {
			// Outside CI, Node 22/24 that cannot be installed (offline) skip their row with the reason.
			const missing = await prepareRuntime(runtime);
			if (missing) ctx.skip(missing);
			const version = runtimeVersion(runtime);
			const { results, peakRssBytes } = await runOnRuntime(runtime, {
				dir,
				mode: "suite",
				input: { keys, bigBytes: BIG_BYTES },
				timeoutMs: RUN_TIMEOUT_MS,
			});
			const expectedNames = [...suiteCases().map((c) => c.name), BIG_CASE];
			expect(results.map((r) => r.name)).toEqual(expectedNames);
			for (const result of results) {
				const unsupported = UNSUPPORTED[runtime][result.name];
				const context = `${runtime} (${version}) › ${result.name}: ${result.error ?? "passed"}`;
				if (unsupported) {
					expect(result.ok, context).toBe(false);
					expect(result.as2Code, context).toBe(unsupported);
				} else {
					expect(result.ok, context).toBe(true);
				}
			}
			expect(results.find((r) => r.name === BIG_CASE)?.bytes).toBe(BIG_BYTES);
			expect(peakRssBytes, `${runtime} peak RSS`).toBeGreaterThan(0);
			expect(peakRssBytes, `${runtime} peak RSS`).toBeLessThan(PEAK_RSS_LIMIT);
		},
		RUN_TIMEOUT_MS + INSTALL_TIMEOUT_MS + 30_000,
	);
});
