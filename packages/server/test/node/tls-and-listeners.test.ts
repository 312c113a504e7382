import { rmSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import type { SecureVersion, TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/node/config-from-env.ts";
import { type RunningServer, startServer } from "../../src/node/create-server.ts";
import { SILENT_LOGGER } from "../../src/service/deps.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

let pki: TestPki;
let server: RunningServer;

beforeAll(async () => {
	pki = createTestPki();
	server = await startServer(
		configFromEnv(
			{
				PORT: "0",
				AS2_PORT: "0",
				DATABASE_URL: ":memory:",
				BLOB_DIR: join(pki.dir, "blobs"),
				AS2_DATA_DIR: pki.dir,
				TLS_CERT_FILE: pki.certPath,
				TLS_KEY_FILE: pki.keyPath,
			},
			["--role", "api"],
		),
		{ logger: SILENT_LOGGER },
	);
});
afterAll(async () => {
	await server.close();
	rmSync(pki.dir, { recursive: true, force: true });
});

function get(port: number, path: string, tls: { maxVersion?: SecureVersion } = {}) {
	return new Promise<{ status: number; body: string; protocol: string | null }>((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, ca: pki.caPem, ...tls }, (res) => {
			const protocol = (res.socket as TLSSocket).getProtocol();
			let body = "";
			res.on("data", (chunk: Buffer) => {
				body += chunk.toString();
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, body, protocol }));
		});
		req.on("error", reject);
		req.end();
	});
}

describe("TLS termination (TLS_CERT_FILE / TLS_KEY_FILE)", () => {
	it("serves the API over HTTPS with a certificate the client verifies", async () => {
		const response = await get(server.address.port, "/health");
		expect(response.status).toBe(200);
		expect(JSON.parse(response.body)).toEqual({ status: "ok" });
		expect(["TLSv1.2", "TLSv1.3"]).toContain(response.protocol);
	});

	it("refuses TLS 1.1 and older", async () => {
		await expect(get(server.address.port, "/health", { maxVersion: "TLSv1.1" })).rejects.toThrow();
	});
});

describe("AS2_PORT", () => {
	it("opens a second listener that serves /as2/* only", async () => {
		expect(server.as2Address).not.toBeNull();
		const api = await get(server.as2Address!.port, "/health");
		expect(api.status).toBe(404);
		expect(JSON.parse(api.body).error.code).toBe("NOT_FOUND");
		const v1 = await get(server.as2Address!.port, "/v1/tenants");
		expect(v1.status).toBe(404);
	});
});
