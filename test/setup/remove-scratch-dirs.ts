// vitest setup file: runs in every test file, so its afterAll ends each file (after the file's
// own afterAll hooks, which stop the servers that use these directories and databases).
import { afterAll } from "vitest";
import { settleBackgroundWork } from "./file-end.ts";
import { removeScratchDirs } from "./scratch-dirs.ts";

afterAll(async () => {
	await settleBackgroundWork();
	removeScratchDirs();
});
