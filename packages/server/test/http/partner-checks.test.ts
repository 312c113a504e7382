import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer as createTlsServer } from "node:https";
import { createServer as createTcpServer, type Server } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

let pki: TestPki;
let tlsServer: ReturnType<typeof createTlsServer>;
let tlsPort: number;
let closedPort: number;
let t: TestApp;
let token: string;

beforeAll(async () => {
	pki = createTestPki();
	tlsServer = createTlsServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (_, res) =>
		res.end("ok"),
	);
	await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
	tlsPort = (tlsServer.address() as { port: number }).port;
	// A port nobody listens on: bind, note it, close.
	const probe: Server = createTcpServer();
	await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
	closedPort = (probe.address() as { port: number }).port;
	await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
	await new Promise((resolve) => tlsServer.close(resolve));
	rmSync(pki.dir, { recursive: true, force: true });
});
beforeEach(async () => {
	t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
	token = (await register(t)).token;
});
afterEach(() => t.close());

const createPartner = (body: Record<string, unknown>) =>
	t.call("POST", "/v1/partners", {
		token,
		body: { name: "Local", as2_id: `L${Math.random().toString(36).slice(2, 8)}`, ...body },
	});
const ping = (id: string) => t.call("POST", `/v1/partners/${id}/test`, { token, body: { test_type: "ping" } });

describe("POST /v1/partners/{id}/test ping", () => {
	it("succeeds against a local TLS server verified with the partner's custom CA: dns, tcp, tls steps timed", async () => {
		const partner = await createPartner({
			url: `https://127.0.0.1:${tlsPort}/as2`,
			tls: { ca_certificate: pki.caPem },
		});
		const response = await ping(partner.json.data.id);
		expect(response.status).toBe(200);
		expect(response.json).toMatchObject({
			success: true,
			data: {
				test_type: "ping",
				partner: { id: partner.json.data.id, url: `https://127.0.0.1:${tlsPort}/as2` },
				results: {
					connectivity: true,
					ssl_validation: { verified: true, protocol: expect.stringMatching(/^TLSv1\.[23]$/) },
				},
				tested_at: "2026-03-01T09:00:00.000000Z",
			},
		});
		expect(response.json.data.timeline.map((s: { step: string; status: string }) => [s.step, s.status])).toEqual([
			["dns", "success"],
			["tcp", "success"],
			["tls", "success"],
		]);
		for (const step of response.json.data.timeline) expect(step.duration_ms).toBeGreaterThanOrEqual(0);
		const detail = await t.call("GET", `/v1/partners/${partner.json.data.id}`, { token });
		expect(detail.json.data.connection_status).toMatchObject({
			last_test: "2026-03-01T09:00:00.000000Z",
			last_test_result: "success",
		});
	});

	it("fails the TLS step when the certificate does not verify (no custom CA), or the pin does not match", async () => {
		const untrusted = await createPartner({ url: `https://127.0.0.1:${tlsPort}/as2` });
		const response = await ping(untrusted.json.data.id);
		expect(response.json.success).toBe(false);
		expect(response.json.data.timeline.map((s: { status: string }) => s.status)).toEqual([
			"success",
			"success",
			"failure",
		]);
		expect(response.json.data.results.error).toMatch(/TLS/);
		const leafSha = createHash("sha256").update(makeCertificates().der(pki.certPath)).digest("hex");
		const pinnedRight = await createPartner({
			url: `https://127.0.0.1:${tlsPort}/as2`,
			tls: { ca_certificate: pki.caPem, pinned_certificate_sha256: leafSha },
		});
		expect((await ping(pinnedRight.json.data.id)).json.success).toBe(true);
		const pinnedWrong = await createPartner({
			url: `https://127.0.0.1:${tlsPort}/as2`,
			tls: { ca_certificate: pki.caPem, pinned_certificate_sha256: "00".repeat(32) },
		});
		const wrong = await ping(pinnedWrong.json.data.id);
		expect(wrong.json.success).toBe(false);
		expect(wrong.json.data.results.ssl_validation.error).toMatch(/pinned/);
		const detail = await t.call("GET", `/v1/partners/${pinnedWrong.json.data.id}`, { token });
		expect(detail.json.data.connection_status.last_test_result).toBe("failure");
	});

	it("fails the TCP step on a closed port, and the DNS step on an unknown host", async () => {
		const closed = await createPartner({ url: `https://127.0.0.1:${closedPort}/as2` });
		const refused = await ping(closed.json.data.id);
		expect(refused.json.data.timeline.map((s: { step: string; status: string }) => [s.step, s.status])).toEqual([
			["dns", "success"],
			["tcp", "failure"],
		]);
		expect(refused.json.data.results.connectivity).toBe(false);
		const nowhere = await createPartner({ url: "https://no-such-host.invalid/as2" });
		const unknown = await ping(nowhere.json.data.id);
		expect(unknown.json.data.timeline.map((s: { step: string; status: string }) => [s.step, s.status])).toEqual([
			["dns", "failure"],
		]);
	});

	it("counts against the plan's partner tests per hour (10 on Free)", async () => {
		const partner = await createPartner({ url: `http://127.0.0.1:${closedPort}/as2` });
		for (let i = 0; i < 10; i++) expect((await ping(partner.json.data.id)).status).toBe(200);
		const over = await ping(partner.json.data.id);
		expect(over.status).toBe(429);
		expect(over.headers.get("retry-after")).toBe("360");
		t.clock.advance(360);
		expect((await ping(partner.json.data.id)).status).toBe(200);
	});
});

describe("POST /v1/partners/{id}/validate", () => {
	it("passes a reachable, fully equipped partner", async () => {
		const partner = await createPartner({
			url: `https://127.0.0.1:${tlsPort}/as2`,
			sign: true,
			encrypt: true,
			encrypt_algorithm: "AES256_CBC",
		});
		const id = partner.json.data.id;
		const cert = makeCertificates().selfSigned("validate-partner");
		await t.call("POST", `/v1/partners/${id}/certificates`, {
			token,
			body: { name: "p", usage: "both", certificate: cert.certPem },
		});
		const response = await t.call("POST", `/v1/partners/${id}/validate`, { token });
		expect(response.status).toBe(200);
		expect(response.json.checks.filter((c: { status: string }) => c.status !== "pass")).toEqual([]);
		expect(response.json.valid).toBe(true);
		expect(response.json.checks.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
			["as2_id_format", "pass"],
			["endpoint_accessibility", "pass"],
			["certificate_validity", "pass"],
			["algorithm_compatibility", "pass"],
		]);
	});

	it("names the issues: UNREACHABLE_ENDPOINT, EXPIRED_CERTIFICATE, CERTIFICATE_REQUIRED, UNSUPPORTED_ALGORITHM", async () => {
		const certs = makeCertificates();
		const down = await createPartner({ url: `https://127.0.0.1:${closedPort}/as2`, encrypt: true });
		const downResult = await t.call("POST", `/v1/partners/${down.json.data.id}/validate`, { token });
		expect(downResult.json.valid).toBe(false);
		const issues = (r: { json: { checks: { issue?: string }[] } }) => r.json.checks.map((c) => c.issue).filter(Boolean);
		expect(issues(downResult)).toEqual(["UNREACHABLE_ENDPOINT", "CERTIFICATE_REQUIRED"]);
		const old = await createPartner({ url: `https://127.0.0.1:${tlsPort}/as2` });
		const expired = certs.selfSigned("validate-expired", {
			validity: { from: new Date("2001-01-01Z"), to: new Date("2002-01-01Z") },
		});
		await t.call("POST", `/v1/partners/${old.json.data.id}/certificates`, {
			token,
			body: { name: "old", usage: "both", certificate: expired.certPem },
		});
		expect(issues(await t.call("POST", `/v1/partners/${old.json.data.id}/validate`, { token }))).toEqual([
			"EXPIRED_CERTIFICATE",
		]);
		const weak = await createPartner({
			url: `https://127.0.0.1:${tlsPort}/as2`,
			sign: true,
			sign_algorithm: "SHA512withRSA",
		});
		const small = certs.selfSigned("validate-1024", { bits: 1024 });
		await t.call("POST", `/v1/partners/${weak.json.data.id}/certificates`, {
			token,
			body: { name: "weak", usage: "signing", certificate: small.certPem },
		});
		expect(issues(await t.call("POST", `/v1/partners/${weak.json.data.id}/validate`, { token }))).toEqual([
			"UNSUPPORTED_ALGORITHM",
		]);
	});
});

describe("POST /v1/partners/{id}/test mdn with a test-environment key", () => {
	it("is simulated (nothing transmitted); a FAIL… partner fails at transmit", async () => {
		const ok = await createPartner({ url: "https://never-contacted.invalid/as2" });
		const response = await t.call("POST", `/v1/partners/${ok.json.data.id}/test`, {
			token,
			body: { test_type: "mdn" },
		});
		expect(response.json.success).toBe(true);
		expect(
			response.json.data.timeline.map((s: { step: string; details: { simulated: boolean } }) => [
				s.step,
				s.details.simulated,
			]),
		).toEqual([
			["build", true],
			["transmit", true],
			["mdn", true],
		]);
		const failing = await t.call("POST", "/v1/partners", {
			token,
			body: { name: "F", as2_id: "FAIL-X", url: "https://f.invalid/as2" },
		});
		const failed = await t.call("POST", `/v1/partners/${failing.json.data.id}/test`, {
			token,
			body: { test_type: "mdn" },
		});
		expect(failed.json.success).toBe(false);
		expect(failed.json.data.results.error).toMatch(/simulated partner/);
	});
});
