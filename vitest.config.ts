import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import LongestFirst from "./test/setup/longest-first.ts";

// "dev-source" resolves workspace packages to their TypeScript sources, so tests never run
// against a stale dist/ (tests run in Node, hence the SSR resolver too).
const conditions = ["dev-source"];

/**
 * Test files that only import modules and build test apps in-process: no child process that
 * outlives a test, no server but in-process ones on loopback that the file stops, no global left
 * changed.
 */
const IN_PROCESS = [
	"packages/*/src/**/*.test.ts",
	"packages/server/test/http/**/*.test.ts",
	"packages/server/test/service/**/*.test.ts",
	"packages/server/test/webhooks/**/*.test.ts",
	...e2eInProcess(),
];
/**
 * In-process files that bound the memory a stream takes by the process's growth: each in a
 * process of its own. In a reused worker, the heap earlier files left makes V8 collect later,
 * and the growth measured is theirs too (a 50 MB EPCIS document grew the process by 57 MB
 * against a 45 MB bound in a reused worker). On SQLite only: none of them writes to a store.
 */
const MEASURES_MEMORY = [
	"packages/server/test/http/epcis-validate-memory.test.ts",
	"packages/as2-core/src/cms/compressed-data.test.ts",
	"packages/as2-core/src/cms/enveloped-data.test.ts",
];
/**
 * The server's end-to-end files but crash-safety (it starts the built server as a process and
 * SIGKILLs it): test apps and peers in-process on loopback, each file stopping its own in its
 * afterAll, and the OpenSSL CLI run to its end. In a process of their own, each imported the
 * whole server again: ~1 s of CPU a file (stop 32).
 */
function e2eInProcess(): string[] {
	const dir = "packages/server/test/e2e";
	return readdirSync(new URL(dir, import.meta.url))
		.filter((file) => file.endsWith(".test.ts") && file !== "crash-safety.test.ts")
		.map((file) => `${dir}/${file}`);
}
const REST_ON_POSTGRESQL = [
	"packages/server/test/http/**/*.test.ts",
	"packages/server/test/webhooks/endpoints.test.ts",
	"packages/server/test/service/certificate-expiry.test.ts",
];

export default defineConfig({
	resolve: { conditions },
	ssr: { resolve: { conditions, externalConditions: conditions } },
	test: {
		// One PostgreSQL for the run (issue #8): a throwaway cluster unless PG_TEST_URL is set.
		// Then the run's own temporary directory, which must be empty at the end (issue #16).
		globalSetup: ["test/pg/global-setup.ts", "test/setup/temp-root.ts"],
		// Removes the scratch directories test helpers made, after each test file; with
		// AS2KIT_TEST_CPU_LOG set, logs each test file's CPU time; turns on the storage adapters'
		// check of the root store inside a transaction (off in production: a promise hook).
		setupFiles: ["test/setup/remove-scratch-dirs.ts", "test/setup/cpu-log.ts", "test/setup/check-transactions.ts"],
		testTimeout: 60_000,
		// expect.poll waits for a condition, not a scheduling window: 1 s (the default) is not
		// enough on a loaded 2-core machine; a poll that passes returns at once.
		expect: { poll: { timeout: 20_000 } },
		hookTimeout: 120_000,
		pool: "forks",
		// The longest files first across projects, from a committed table on a fresh clone.
		sequence: { sequencer: LongestFirst },
		// Most test files wait on child processes, sockets and PostgreSQL more than they compute:
		// two per core on small machines (vitest's default, cores - 1, is one worker on 2 cores).
		maxWorkers: Math.max(availableParallelism(), Math.min(availableParallelism() * 2, 8)),
		projects: [
			{
				extends: true,
				test: {
					name: "all",
					include: [
						"packages/*/src/**/*.test.ts",
						"packages/*/test/**/*.test.ts",
						"test/**/*.test.ts",
						"examples/**/*.test.ts",
					],
					exclude: [
						...configDefaults.exclude,
						...IN_PROCESS,
						// Connects to PostgreSQL whatever the project: it runs once, in blackbox-on-postgresql.
						"test/blackbox/pg-unix-socket.test.ts",
						"test/blackbox/pg-connections-dropped.test.ts",
					],
				},
			},
			{
				// The same files as "all" runs, but reused worker processes: they test modules and test
				// apps in-process and restore what they change, so a worker runs file after file and
				// imports the sources once instead of once per file (the suite is CPU-bound on 2 cores).
				extends: true,
				test: {
					name: "in-process",
					include: IN_PROCESS,
					exclude: [...configDefaults.exclude, ...MEASURES_MEMORY],
					isolate: false,
				},
			},
			{
				// The in-process files that measure memory, each in a process of its own.
				extends: true,
				test: { name: "in-process-isolated", include: MEASURES_MEMORY },
			},
			{
				// The REST surface unchanged on PostgreSQL: the HTTP tests again, each test app on
				// a fresh PostgreSQL database (packages/server/test/helpers/test-app.ts).
				extends: true,
				test: {
					name: "rest-on-postgresql",
					include: REST_ON_POSTGRESQL,
					exclude: [...configDefaults.exclude, ...MEASURES_MEMORY],
					env: { AS2KIT_TEST_STORE: "pg" },
					// These files only build test apps in-process (a fresh app and database per test) and
					// restore what they change: one worker process runs file after file, importing the
					// server's sources once instead of once per file.
					isolate: false,
				},
			},
			{
				// The black-box suite (issue #16) against the built server on PostgreSQL
				// (test/blackbox/built-server.ts picks the store from AS2KIT_TEST_STORE).
				extends: true,
				test: {
					name: "blackbox-on-postgresql",
					include: ["test/blackbox/**/*.test.ts"],
					// What the store takes no part in runs once, on SQLite: the S/MIME matrix against the
					// OpenSSL CLI (66 cases of one inbound path, which partner-crypto and partner-quirks
					// cover here), the /docs page in Chromium, the OpenAPI document, the console's files,
					// the heads of answers (X-Request-Id, AS2 fields read from raw headers).
					exclude: [
						"test/blackbox/answer-heads.test.ts",
						"test/blackbox/openssl-interop-matrix.test.ts",
						"test/blackbox/docs-offline.test.ts",
						"test/blackbox/openapi-document.test.ts",
						"test/blackbox/console-serving.test.ts",
						// SQLite's group commit: it reads the database file a killed server left.
						"test/blackbox/group-commit.test.ts",
						// The raw socket writer of the upload tests, on a socket of its own.
						"test/blackbox/socket-write.test.ts",
						// An 8 MB event validated, and the EPCIS pool's bound: no write to the store (the
						// inbound path, which stores the event, is epcis-load.test.ts, on both stores).
						"test/blackbox/epcis-validate-load.test.ts",
					],
					env: { AS2KIT_TEST_STORE: "pg" },
				},
			},
		],
	},
});
