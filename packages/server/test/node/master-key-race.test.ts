import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { loadMasterKey } from "../../src/node/master-key.ts";
import { SILENT_LOGGER } from "../../src/service/deps.ts";

// Two instances starting at the same moment on one data directory, neither with
// AS2_MASTER_KEY: the other one links its key into place between our read and our link.
const OTHER = "ab".repeat(32);
let raceOnce = false;
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	return {
		...real,
		linkSync: (existing: fs.PathLike, target: fs.PathLike) => {
			if (raceOnce) {
				raceOnce = false;
				real.writeFileSync(target, `${OTHER}\n`, { mode: 0o600 });
			}
			return real.linkSync(existing, target);
		},
	};
});

let dir = "";
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it("of two instances generating a master key at once, the second takes the first one's key", () => {
	dir = fs.mkdtempSync(join(tmpdir(), "as2kit-key-race-"));
	raceOnce = true;
	const key = loadMasterKey(null, dir, SILENT_LOGGER);
	expect(Buffer.from(key).toString("hex")).toBe(OTHER);
	// No temporary file is left behind, and a later start reads the same key.
	expect(fs.readdirSync(dir)).toEqual(["master.key"]);
	expect(Buffer.from(loadMasterKey(null, dir, SILENT_LOGGER)).toString("hex")).toBe(OTHER);
});
