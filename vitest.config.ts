import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: { conditions: ["dev-source"] },
	test: {
		include: [
			"packages/*/src/**/*.test.ts",
			"packages/*/test/**/*.test.ts",
			"test/**/*.test.ts",
			"examples/**/*.test.ts",
		],
		testTimeout: 60_000,
		hookTimeout: 120_000,
		pool: "forks",
	},
});
