import { defineConfig } from "tsup";

export default defineConfig({
	entry: { index: "src/index.ts", "service/index": "src/service/index.ts", "bin/start": "src/bin/start.ts" },
	format: ["esm"],
	dts: { entry: { index: "src/index.ts", "service/index": "src/service/index.ts" } },
	clean: true,
	target: "node20",
	sourcemap: true,
});
