import { defineConfig } from "tsup";

export default defineConfig({
	entry: { index: "src/index.ts", "store/index": "src/store/index.ts", "cli/main": "src/cli/main.ts" },
	format: ["esm"],
	dts: { entry: { index: "src/index.ts", "store/index": "src/store/index.ts" } },
	clean: true,
	target: "node20",
	sourcemap: true,
});
