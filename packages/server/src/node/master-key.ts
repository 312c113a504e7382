import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../service/deps.ts";

/**
 * The master key (`AS2_MASTER_KEY`, 32 bytes as 64 hex digits or base64): private keys are
 * encrypted and tokens hashed under keys derived from it. When unset, one is generated into
 * `<data dir>/master.key` on the first start and reused, with a warning: a deployment should
 * keep it in its secret store, because losing it makes every stored private key unreadable.
 */
export function loadMasterKey(value: string | null, dataDir: string, logger: Logger): Uint8Array {
	if (value) return decode(value, "AS2_MASTER_KEY");
	const file = join(dataDir, "master.key");
	try {
		return decode(readFileSync(file, "utf8").trim(), file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
	}
	// Owner-only, like the key itself (issue #16: files at rest).
	mkdirSync(dataDir, { recursive: true, mode: 0o700 });
	const key = randomBytes(32);
	// Written whole under a temporary name, then linked into place: a process starting at the
	// same moment either finds no file or a complete one, and of two that generate, the one
	// that links first wins and the other reads its key.
	const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	writeFileSync(temporary, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
	try {
		linkSync(temporary, file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		return decode(readFileSync(file, "utf8").trim(), file);
	} finally {
		rmSync(temporary, { force: true });
	}
	logger.warn({ file }, "AS2_MASTER_KEY is not set: generated a master key into the data directory; back it up");
	return new Uint8Array(key);
}

/** Base64 (or base64url): Buffer.from skips other characters, so a damaged value is checked first. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

function decode(value: string, source: string): Uint8Array {
	const hex = /^[0-9a-f]{64}$/i.test(value);
	const bytes = hex ? Buffer.from(value, "hex") : BASE64.test(value) ? Buffer.from(value, "base64") : null;
	// README (AS2_MASTER_KEY): exactly 32 bytes, as 64 hex digits or base64; anything else is refused.
	if (bytes?.length !== 32) throw new Error(`${source} must hold 32 bytes (64 hex digits or base64)`);
	return new Uint8Array(bytes);
}
