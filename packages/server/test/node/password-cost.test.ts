import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/node/config-from-env.ts";
import { startServer } from "../../src/node/create-server.ts";
import { DEFAULT_CONFIG } from "../../src/service/config.ts";
import type { Logger } from "../../src/service/deps.ts";

/**
 * Passwords are slow hashes (decisions.md): scrypt at log2 N = 15 unless a test suite sets
 * AS2_TEST_PASSWORD_COST_LOG2 (the black-box suite does, test/blackbox/built-server.ts: each
 * hash at 15 costs ~120 ms of CPU, and every server start and registration pays one). The
 * variable cannot lower the cost of a server partners reach, and without it nothing changes.
 */
let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-password-cost-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/** The stored hash of a user registered on a server started from `env`, and its warnings. */
async function registeredHash(extra: Record<string, string>): Promise<{ hash: string; warnings: string[] }> {
	const warnings: string[] = [];
	const logger: Logger = { ...silent, warn: (_object, message) => void warnings.push(String(message)) };
	const config = configFromEnv(
		{
			PORT: "0",
			DATABASE_URL: join(dir, "as2.sqlite"),
			BLOB_DIR: join(dir, "blobs"),
			AS2_DATA_DIR: dir,
			AS2_MASTER_KEY: "07".repeat(32),
			...extra,
		},
		["--role", "api"],
	);
	const server = await startServer(config, { logger });
	try {
		const registered = await server.app.request("/auth/register", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({
				name: "Cost Inc",
				email: "cost@example.com",
				password: "correct horse battery",
				password_confirmation: "correct horse battery",
			}),
		});
		expect(registered.status).toBe(201);
		const user = await server.store.users.findByEmail("cost@example.com");
		return { hash: user!.passwordHash, warnings };
	} finally {
		await server.close();
	}
}

describe("the password hashing cost", () => {
	it("is scrypt at log2 N = 15 without AS2_TEST_PASSWORD_COST_LOG2, with no warning", async () => {
		expect(DEFAULT_CONFIG.passwordCostLog2).toBe(15);
		expect(configFromEnv({}).AS2_TEST_PASSWORD_COST_LOG2).toBeUndefined();
		const { hash, warnings } = await registeredHash({});
		expect(hash).toMatch(/^scrypt\$15\$8\$1\$/);
		expect(warnings.filter((w) => /AS2_TEST_PASSWORD_COST_LOG2/.test(w))).toEqual([]);
	});

	it("is the test suite's cost with AS2_TEST_PASSWORD_COST_LOG2, with a warning at start", async () => {
		const { hash, warnings } = await registeredHash({ AS2_TEST_PASSWORD_COST_LOG2: "10" });
		expect(hash).toMatch(/^scrypt\$10\$8\$1\$/);
		expect(warnings.filter((w) => /AS2_TEST_PASSWORD_COST_LOG2 is set.*too cheap for production/.test(w))).toHaveLength(
			1,
		);
	});

	it("refuses AS2_TEST_PASSWORD_COST_LOG2 on a server partners reach, and outside 10 to 14", () => {
		expect(() =>
			configFromEnv({ AS2_TEST_PASSWORD_COST_LOG2: "10", AS2_PUBLIC_URL: "https://as2.example.com" }),
		).toThrow(/AS2_TEST_PASSWORD_COST_LOG2 is for test suites only/);
		expect(() =>
			configFromEnv({ AS2_TEST_PASSWORD_COST_LOG2: "10", TLS_CERT_FILE: "cert.pem", TLS_KEY_FILE: "key.pem" }),
		).toThrow(/AS2_TEST_PASSWORD_COST_LOG2 is for test suites only/);
		for (const value of ["9", "15", "20", "", "ten"]) {
			expect(() => configFromEnv({ AS2_TEST_PASSWORD_COST_LOG2: value })).toThrow(/AS2_TEST_PASSWORD_COST_LOG2/);
		}
	});
});
