import { createDecipheriv, createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/node/config-from-env.ts";
import { startServer } from "../../src/node/create-server.ts";
import { loadMasterKey } from "../../src/node/master-key.ts";
import type { Logger } from "../../src/service/deps.ts";
import { deriveKey } from "../../src/service/secrets/tokens.ts";
import { createTestApp, register } from "../helpers/test-app.ts";

/**
 * The master key (README, AS2_MASTER_KEY): 32 bytes from the environment, or, when unset,
 * generated once into `AS2_DATA_DIR/master.key` (owner-only) with a warning and reused on
 * every later start; a malformed value stops the start with an error naming the variable.
 * Private keys are sealed under a key derived from it with AES-256-GCM.
 */
type Entry = { level: "debug" | "info" | "warn" | "error"; object: object; message?: string };

function recordingLogger(entries: Entry[]): Logger {
	const logger: Logger = {
		debug: (object, message) => void entries.push({ level: "debug", object, message }),
		info: (object, message) => void entries.push({ level: "info", object, message }),
		warn: (object, message) => void entries.push({ level: "warn", object, message }),
		error: (object, message) => void entries.push({ level: "error", object, message }),
		child: () => logger,
	};
	return logger;
}

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-master-key-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEX_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

describe("loadMasterKey", () => {
	it("generates 32 random bytes into <data dir>/master.key, owner-only, with a warning", () => {
		const dataDir = join(dir, "data", "nested"); // created when missing
		const entries: Entry[] = [];
		const key = loadMasterKey(null, dataDir, recordingLogger(entries));
		const file = join(dataDir, "master.key");
		expect(key).toBeInstanceOf(Uint8Array);
		expect(key.byteLength).toBe(32);
		expect(readFileSync(file, "utf8")).toBe(`${Buffer.from(key).toString("hex")}\n`);
		if (process.platform !== "win32") {
			expect(statSync(file).mode & 0o777).toBe(0o600);
			// Issue #16, defect 12: the data directory it creates is owner-only too.
			expect(statSync(dataDir).mode & 0o777).toBe(0o700);
		}
		const warnings = entries.filter((e) => e.level === "warn");
		expect(warnings).toHaveLength(1);
		expect(warnings[0]!.object).toEqual({ file });
		expect(warnings[0]!.message).toMatch(/AS2_MASTER_KEY is not set.*generated.*back it up/);
	});

	it("reuses the generated key on the next start, without a second warning", () => {
		const first = loadMasterKey(null, dir, recordingLogger([]));
		const entries: Entry[] = [];
		const second = loadMasterKey(null, dir, recordingLogger(entries));
		expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
		expect(entries).toEqual([]);
		// Two generations would differ: the bytes are random.
		const elsewhere = mkdtempSync(join(tmpdir(), "as2kit-master-key-"));
		try {
			expect(Buffer.from(loadMasterKey(null, elsewhere, recordingLogger([]))).equals(Buffer.from(first))).toBe(false);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
		}
	});

	it("takes AS2_MASTER_KEY as 64 hex digits or base64, writing no file and logging nothing", () => {
		const entries: Entry[] = [];
		const fromHex = loadMasterKey(HEX_KEY, dir, recordingLogger(entries));
		expect(Buffer.from(fromHex).toString("hex")).toBe(HEX_KEY);
		const base64 = Buffer.from(HEX_KEY, "hex").toString("base64");
		expect(Buffer.from(loadMasterKey(base64, dir, recordingLogger(entries))).toString("hex")).toBe(HEX_KEY);
		expect(existsSync(join(dir, "master.key"))).toBe(false);
		expect(entries).toEqual([]);
	});

	it("refuses a malformed AS2_MASTER_KEY with an error naming the variable", () => {
		for (const bad of [
			"secret", // a password, not a key
			HEX_KEY.slice(2), // 31 bytes of hex
			`${HEX_KEY}00`, // 33 bytes of hex
			Buffer.alloc(31, 1).toString("base64"),
			Buffer.alloc(33, 1).toString("base64"),
			`${HEX_KEY.slice(0, 63)}g`, // a typo in a hex key
			// 32 bytes of base64 with characters outside the alphabet: not silently dropped
			`${Buffer.alloc(32, 1).toString("base64").slice(0, 20)}*${Buffer.alloc(32, 1).toString("base64").slice(20)}`,
			`${Buffer.alloc(32, 1).toString("base64").slice(0, 20)} ${Buffer.alloc(32, 1).toString("base64").slice(20)}`,
		]) {
			expect(() => loadMasterKey(bad, dir, recordingLogger([])), bad).toThrow(/^AS2_MASTER_KEY must hold 32 bytes/);
		}
		expect(existsSync(join(dir, "master.key"))).toBe(false);
	});

	it("refuses a damaged master.key rather than replacing it", () => {
		const file = join(dir, "master.key");
		writeFileSync(file, "0011\n", { mode: 0o600 });
		expect(() => loadMasterKey(null, dir, recordingLogger([]))).toThrow(/master\.key must hold 32 bytes/);
		expect(readFileSync(file, "utf8")).toBe("0011\n");
	});
});

describe("the server's start", () => {
	const env = (extra: Record<string, string> = {}) =>
		configFromEnv(
			{
				PORT: "0",
				DATABASE_URL: join(dir, "as2.sqlite"),
				BLOB_DIR: join(dir, "blobs"),
				AS2_DATA_DIR: dir,
				...extra,
			},
			["--role", "api"],
		);

	it("generates the key on the first start with a warning, and a restart reuses it (its tokens still work)", async () => {
		const firstLog: Entry[] = [];
		const first = await startServer(env(), { logger: recordingLogger(firstLog) });
		let token: string;
		try {
			const registered = await first.app.request("/auth/register", {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({
					name: "Restart Inc",
					email: "restart@example.com",
					password: "correct horse battery",
					password_confirmation: "correct horse battery",
				}),
			});
			expect(registered.status).toBe(201);
			token = ((await registered.json()) as { token: string }).token;
		} finally {
			await first.close();
		}
		expect(
			firstLog.filter((e) => e.level === "warn" && /AS2_MASTER_KEY is not set/.test(e.message ?? "")),
		).toHaveLength(1);
		const keyFile = readFileSync(join(dir, "master.key"), "utf8");

		const secondLog: Entry[] = [];
		const second = await startServer(env(), { logger: recordingLogger(secondLog) });
		try {
			// Session tokens are stored as HMACs under a key derived from the master key: a new key would refuse it.
			const me = await second.app.request("/auth/me", { headers: { authorization: `Bearer ${token}` } });
			expect(me.status).toBe(200);
		} finally {
			await second.close();
		}
		expect(readFileSync(join(dir, "master.key"), "utf8")).toBe(keyFile);
		expect(secondLog.filter((e) => /AS2_MASTER_KEY/.test(e.message ?? ""))).toEqual([]);
	});

	it("does not start with a malformed AS2_MASTER_KEY, and says why", async () => {
		await expect(startServer(env({ AS2_MASTER_KEY: "not-a-key" }), { logger: recordingLogger([]) })).rejects.toThrow(
			"AS2_MASTER_KEY must hold 32 bytes (64 hex digits or base64)",
		);
		expect(existsSync(join(dir, "master.key"))).toBe(false);
		expect(existsSync(join(dir, "as2.sqlite"))).toBe(false);
	});
});

describe("sealed private keys", () => {
	it("are AES-256-GCM under a key derived from the master key, bound to the certificate id", async () => {
		const masterKey = new Uint8Array(32).fill(7); // createTestApp's master key
		const t = createTestApp();
		try {
			const owner = await register(t, "Sealed");
			// Every tenant gets a generated identity (decisions.md); its private key is stored sealed.
			const listed = await t.call("GET", "/v1/certificates?type=identity", { token: owner.token });
			const id = listed.json.data[0].id as string;
			const record = await t.store.certificates.get(owner.accountId, id);
			const sealed = record!.privateKeySealed!;
			expect(sealed).not.toContain("PRIVATE KEY");
			const [version, iv, tag, body, ...rest] = sealed.split(".");
			expect(version).toBe("v1");
			expect(rest).toEqual([]);
			expect(Buffer.from(iv!, "base64url")).toHaveLength(12); // GCM's 96-bit nonce
			expect(Buffer.from(tag!, "base64url")).toHaveLength(16); // a full 128-bit tag
			// Opened here with node:crypto directly, not with the module under test.
			const open = (key: Uint8Array, aad: string) => {
				const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv!, "base64url"));
				decipher.setAAD(Buffer.from(aad));
				decipher.setAuthTag(Buffer.from(tag!, "base64url"));
				return Buffer.concat([decipher.update(Buffer.from(body!, "base64url")), decipher.final()]).toString("utf8");
			};
			const pem = open(deriveKey(masterKey, "sealed secrets"), id);
			expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
			// It is the private key of the identity's certificate.
			const certificate = new X509Certificate(record!.certificatePem);
			const publicOfPrivate = createPublicKey(createPrivateKey(pem)).export({ type: "spki", format: "der" });
			expect(Buffer.from(publicOfPrivate).equals(certificate.publicKey.export({ type: "spki", format: "der" }))).toBe(
				true,
			);
			// The tag authenticates: another master key or another certificate id does not open it.
			expect(() => open(deriveKey(new Uint8Array(32).fill(8), "sealed secrets"), id)).toThrow();
			expect(() => open(deriveKey(masterKey, "sealed secrets"), "cert_999999")).toThrow();
		} finally {
			await t.close();
		}
	});
});
