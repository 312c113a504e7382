import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type BuiltServer, REPO, startBuiltServer } from "./built-server.ts";

/**
 * AS2_TEST_PASSWORD_COST_LOG2 on the built server, as an operator would meet it: a test suite's
 * cheaper scrypt cost that is logged at start, never the default, and refused on a server
 * partners reach (AS2_PUBLIC_URL or TLS_CERT_FILE). The hash is read from the database a
 * registration over HTTP wrote, on the store of the project that runs the file.
 */
let server: BuiltServer | null = null;
afterEach(async () => {
	await server?.stop();
	server = null;
});

async function registerOverHttp(base: string): Promise<void> {
	const response = await fetch(`${base}/auth/register`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			name: "Cost Inc",
			email: "cost@example.com",
			password: "correct horse battery",
			password_confirmation: "correct horse battery",
		}),
	});
	expect(response.status).toBe(201);
}

const HASH_SQL = "select password_hash from users where email = 'cost@example.com'";

async function storedHash(databaseUrl: string): Promise<string> {
	if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
		const client = new pg.Client({ connectionString: databaseUrl });
		await client.connect();
		try {
			return (await client.query<{ password_hash: string }>(HASH_SQL)).rows[0]!.password_hash;
		} finally {
			await client.end();
		}
	}
	const db = new Database(databaseUrl, { readonly: true });
	try {
		return (db.prepare(HASH_SQL).get() as { password_hash: string }).password_hash;
	} finally {
		db.close();
	}
}

describe("the built server's password cost", () => {
	it("hashes at scrypt log2 N = 15 without AS2_TEST_PASSWORD_COST_LOG2, and warns of nothing", async () => {
		// AS2_PUBLIC_URL keeps built-server.ts from setting the variable; nothing connects to it here.
		server = await startBuiltServer({ env: { AS2_PUBLIC_URL: "https://as2.example.com" } });
		await registerOverHttp(server.base);
		expect(await storedHash(server.databaseUrl)).toMatch(/^scrypt\$15\$8\$1\$/);
		expect(server.output()).not.toContain("AS2_TEST_PASSWORD_COST_LOG2");
	});

	it("hashes at the test suite's cost with AS2_TEST_PASSWORD_COST_LOG2, and logs a warning at start", async () => {
		server = await startBuiltServer({ env: { AS2_TEST_PASSWORD_COST_LOG2: "11" } });
		await registerOverHttp(server.base);
		expect(await storedHash(server.databaseUrl)).toMatch(/^scrypt\$11\$8\$1\$/);
		expect(server.output()).toMatch(/AS2_TEST_PASSWORD_COST_LOG2 is set: passwords are hashed at a test suite's cost/);
	});

	it("refuses to start with AS2_TEST_PASSWORD_COST_LOG2 and AS2_PUBLIC_URL set", () => {
		const dir = mkdtempSync(join(tmpdir(), "as2kit-password-cost-"));
		try {
			const started = spawnSync(process.execPath, [join(REPO, "packages/server/dist/bin/start.js")], {
				cwd: dir,
				env: {
					PATH: process.env.PATH ?? "",
					TMPDIR: dir,
					PORT: "0",
					HOST: "127.0.0.1",
					DATABASE_URL: join(dir, "as2.sqlite"),
					BLOB_DIR: join(dir, "blobs"),
					AS2_DATA_DIR: dir,
					AS2_TEST_PASSWORD_COST_LOG2: "10",
					AS2_PUBLIC_URL: "https://as2.example.com",
				},
				encoding: "utf8",
				timeout: 60_000,
			});
			expect(started.signal).toBeNull();
			expect(started.status).not.toBe(0);
			expect(`${started.stdout}${started.stderr}`).toContain(
				"AS2_TEST_PASSWORD_COST_LOG2 is for test suites only: it cannot be set with AS2_PUBLIC_URL or TLS_CERT_FILE",
			);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
