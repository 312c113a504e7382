import { defineConfig } from "tsup";

export default defineConfig({
	entry: {
		index: "src/index.ts",
		"service/index": "src/service/index.ts",
		"bin/start": "src/bin/start.ts",
		// The EPCIS worker thread: at the top of dist/, beside the chunk of the pool that starts it.
		"epcis-thread": "src/node/epcis-thread.ts",
	},
	format: ["esm"],
	dts: { entry: { index: "src/index.ts", "service/index": "src/service/index.ts" } },
	clean: true,
	target: "node20",
	sourcemap: true,
});
