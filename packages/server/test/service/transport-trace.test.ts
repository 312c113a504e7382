import { X509Certificate } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { TLSSocket } from "node:tls";
import { afterAll, expect, it, vi } from "vitest";
import { postAs2 } from "../../src/service/transport/post-as2.ts";
import { createTargetGuard } from "../../src/service/transport/target-guard.ts";
import { newTrace } from "../../src/service/transport/transport-trace.ts";
import { makeCertificates } from "../helpers/certs.ts";

const certs = makeCertificates();
const identity = certs.selfSigned("trace-partner");
afterAll(() => rmSync(certs.dir, { recursive: true, force: true }));

it("traces a TLS exchange: version, the peer's fingerprint, every phase, both heads, Authorization redacted", async () => {
	const server = createServer({ key: identity.keyPem, cert: identity.certPem }, (req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("received"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const pin = new X509Certificate(identity.certPem).fingerprint256.replaceAll(":", "").toLowerCase();
	const trace = newTrace();
	const body = new Uint8Array(100_000).fill(65);
	try {
		const result = await postAs2({
			url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
			guard: createTargetGuard({ allowPrivateTargets: true }),
			headers: [["Content-Type", "application/pkcs7-mime"]],
			body: {
				size: body.byteLength,
				async *open() {
					yield body;
				},
			},
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 30_000,
			tls: { caPem: null, pinnedSha256: pin },
			auth: { username: "acme", password: "s3cret-password" },
			trace,
		});
		expect(result.status).toBe(200);
	} finally {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
	expect(trace.tlsVersion).toMatch(/^TLSv1\.[23]$/);
	expect(trace.peerCertificateSha256).toBe(pin);
	for (const phase of ["connectMs", "tlsMs", "sendMs", "waitMs"] as const) {
		expect(trace.phases[phase], phase).toBeGreaterThanOrEqual(0);
	}
	expect(trace.bytesSent).toBeGreaterThan(body.byteLength);
	expect(trace.bytesReceived).toBeGreaterThan(0);
	expect(trace.requestHead).toMatch(/^POST \/as2 HTTP\/1\.1\r\n[\s\S]*\r\n\r\n$/);
	expect(trace.requestHead).toContain("Content-Length: 100000\r\n");
	expect(trace.requestHead).toMatch(/Authorization: Basic \[redacted\]\r\n/);
	expect(trace.requestHead).not.toContain(Buffer.from("acme:s3cret-password").toString("base64"));
	expect(trace.responseHead).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/plain\r\n[\s\S]*\r\n\r\n$/);
});

it("on a kept-alive connection: no connect phase, and no listeners left behind request after request", async () => {
	const server = createHttpServer((req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const traces: ReturnType<typeof newTrace>[] = [];
	const warnings: string[] = [];
	const onWarning = (warning: Error) => warnings.push(warning.name);
	process.on("warning", onWarning);
	try {
		for (let i = 0; i < 15; i++) {
			const trace = newTrace();
			await postAs2({
				url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
				guard: createTargetGuard({ allowPrivateTargets: true }),
				headers: [["Content-Type", "text/plain"]],
				body: {
					size: 2,
					async *open() {
						yield new Uint8Array([104, 105]);
					},
				},
				idleTimeoutMs: 10_000,
				totalTimeoutMs: 30_000,
				trace,
			});
			traces.push(trace);
		}
	} finally {
		process.off("warning", onWarning);
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
	expect(traces[0]!.phases.connectMs).toBeGreaterThanOrEqual(0);
	// Every later request went over the first one's connection.
	expect(traces.slice(1).filter((t) => t.phases.connectMs !== undefined)).toEqual([]);
	expect(traces.every((t) => t.requestHead?.startsWith("POST /as2 HTTP/1.1\r\n"))).toBe(true);
	expect(warnings).not.toContain("MaxListenersExceededWarning");
});

it("on a kept-alive TLS connection: every exchange names the peer's certificate, read once per connection", async () => {
	const server = createServer({ key: identity.keyPem, cert: identity.certPem }, (req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const fingerprint = new X509Certificate(identity.certPem).fingerprint256.replaceAll(":", "").toLowerCase();
	const certificateReads = vi.spyOn(TLSSocket.prototype, "getPeerCertificate");
	const traces: ReturnType<typeof newTrace>[] = [];
	let readsForTheConnection = 0;
	let reads = 0;
	try {
		for (let i = 0; i < 6; i++) {
			const trace = newTrace();
			const result = await postAs2({
				url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
				guard: createTargetGuard({ allowPrivateTargets: true }),
				headers: [["Content-Type", "text/plain"]],
				body: {
					size: 2,
					async *open() {
						yield new Uint8Array([104, 105]);
					},
				},
				idleTimeoutMs: 10_000,
				totalTimeoutMs: 30_000,
				tls: { caPem: null, pinnedSha256: fingerprint },
				trace,
			});
			expect(result.status).toBe(200);
			traces.push(trace);
			// The handshake and the pin read it too, once for the connection.
			if (i === 0) readsForTheConnection = certificateReads.mock.calls.length;
		}
		reads = certificateReads.mock.calls.length;
	} finally {
		certificateReads.mockRestore();
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
	expect(traces.slice(1).filter((t) => t.phases.connectMs !== undefined)).toEqual([]);
	expect(traces.map((t) => t.peerCertificateSha256)).toEqual(traces.map(() => fingerprint));
	// Each read builds the whole certificate as an object: for the connection, not again per message.
	expect(readsForTheConnection).toBeGreaterThan(0);
	expect(reads).toBe(readsForTheConnection);
});
