// vitest setup file: runs in every test file, so its afterAll ends each file.
import { afterAll } from "vitest";
import { removeScratchDirs } from "./scratch-dirs.ts";

afterAll(removeScratchDirs);
