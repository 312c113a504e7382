import { defineConfig } from "vitest/config";

// "dev-source" resolves workspace packages to their TypeScript sources, so tests never run
// against a stale dist/ (tests run in Node, hence the SSR resolver too).
const conditions = ["dev-source"];

export default defineConfig({
	resolve: { conditions },
	ssr: { resolve: { conditions, externalConditions: conditions } },
	test: {
		include: [
			"packages/*/src/**/*.test.ts",
			"packages/*/test/**/*.test.ts",
			"test/**/*.test.ts",
			"examples/**/*.test.ts",
		],
		// One PostgreSQL for the run (issue #8): a throwaway cluster unless PG_TEST_URL is set.
		globalSetup: ["test/pg/global-setup.ts"],
		testTimeout: 60_000,
		hookTimeout: 120_000,
		pool: "forks",
	},
});
