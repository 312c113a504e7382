import { X509Certificate } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, expect, it } from "vitest";
import { postAs2 } from "../../src/service/transport/post-as2.ts";
import { createTargetGuard } from "../../src/service/transport/target-guard.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createTestPki } from "../helpers/tls.ts";

/** These partners listen on loopback: the deployment allows private targets (AS2_ALLOW_PRIVATE_TARGETS=1). */
const guard = createTargetGuard({ allowPrivateTargets: true });

const certs = makeCertificates();
const pki = createTestPki();
afterAll(() => {
	rmSync(certs.dir, { recursive: true, force: true });
	rmSync(pki.dir, { recursive: true, force: true });
});

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
	await close?.();
	close = null;
});

/** An HTTPS server answering 200 "ok", counting its TLS connections; closed after the test. */
async function countingOkServer(key: string | Buffer, cert: string | Buffer) {
	const server = createHttpsServer({ key, cert }, (req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	let count = 0;
	server.on("secureConnection", () => count++);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => {
		server.closeAllConnections();
		return new Promise((resolve) => server.close(() => resolve()));
	};
	return { server, connections: () => count };
}

it("streams a large body with backpressure and leaves no listeners behind on each wait", async () => {
	let received = 0;
	const server = createServer((req, res) => {
		// A slow reader: writes keep meeting a full buffer, so the sender waits for drain many times.
		req.on("data", (chunk: Buffer) => {
			received += chunk.byteLength;
			req.pause();
			setTimeout(() => req.resume(), 1);
		});
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => new Promise((resolve) => server.close(() => resolve()));
	const warnings: string[] = [];
	const onWarning = (warning: Error) => warnings.push(warning.name);
	process.on("warning", onWarning);
	const chunk = new Uint8Array(64 * 1024).fill(7);
	const chunks = 256;
	try {
		const result = await postAs2({
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
			guard,
			headers: [["content-type", "application/octet-stream"]],
			body: {
				size: chunk.byteLength * chunks,
				async *open() {
					for (let i = 0; i < chunks; i++) yield chunk;
				},
			},
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 60_000,
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(result.status).toBe(200);
		expect(received).toBe(chunk.byteLength * chunks);
		expect(warnings).not.toContain("MaxListenersExceededWarning");
	} finally {
		process.off("warning", onWarning);
	}
});

/**
 * POSTs four bytes, then lets `after` run inside the body's producer, to a partner that
 * answers 200 as soon as it has the four bytes (as a sync MDN does, knowing Content-Length).
 */
async function postAnsweredEarly(after: () => Promise<void>) {
	const server = createServer((req, res) => {
		let received = 0;
		req.on("data", (chunk: Buffer) => {
			received += chunk.byteLength;
			if (received === 4) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => new Promise((resolve) => server.close(() => resolve()));
	return postAs2({
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
		guard,
		headers: [["content-type", "application/octet-stream"]],
		body: {
			size: 4,
			async *open() {
				yield new Uint8Array([1, 2, 3, 4]);
				await after();
			},
		},
		idleTimeoutMs: 10_000,
		totalTimeoutMs: 60_000,
	});
}

it("settles only once the body's producer has finished, even when the answer comes first", async () => {
	// The sender's producer still has work to do after its last chunk (recording the MIC):
	// the MDN must not be acted on before that work is done.
	let producerDone = false;
	const result = await postAnsweredEarly(async () => {
		await new Promise((resolve) => setTimeout(resolve, 200));
		producerDone = true;
	});
	expect(result.status).toBe(200);
	expect(producerDone).toBe(true);
});

it("reports a producer that fails after the answer came as the failure of the exchange", async () => {
	const posted = postAnsweredEarly(async () => {
		await new Promise((resolve) => setTimeout(resolve, 100));
		throw new Error("the MIC could not be recorded");
	});
	await expect(posted).rejects.toMatchObject({ code: "PARTNER_UNREACHABLE" });
	await expect(posted).rejects.toThrow(/the MIC could not be recorded/);
});

it("closes an idle kept-alive connection before the partner's keep-alive timeout, so it is never reused as the partner closes it", async () => {
	// keepAliveTimeout 2.999 s: Node announces `Keep-Alive: timeout=2` and closes idle connections
	// after 2.999 s. Reusing one just then fails the next POST with ECONNRESET.
	const server = createServer((req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	server.keepAliveTimeout = 2999;
	// Who closed each connection, told by events rather than by timing: the partner's socket sees
	// an end (our FIN) only when we close first; its own keep-alive timeout destroys it without one.
	const closes: string[] = [];
	let firstClose!: () => void;
	const closed = new Promise<void>((resolve) => {
		firstClose = resolve;
	});
	server.on("connection", (socket) => {
		let endedByUs = false;
		socket.once("end", () => {
			endedByUs = true;
		});
		socket.once("close", () => {
			closes.push(endedByUs ? "by us" : "by the partner");
			firstClose();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => new Promise((resolve) => server.close(() => resolve()));
	const post = () =>
		postAs2({
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
			guard,
			headers: [["content-type", "text/plain"]],
			body: {
				size: 2,
				async *open() {
					yield new TextEncoder().encode("hi");
				},
			},
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 10_000,
		});
	expect((await post()).status).toBe(200);
	// We close a second before the announced timeout (at 1 s), well before the partner would (3 s).
	await closed;
	expect(closes).toEqual(["by us"]);
	expect((await post()).status).toBe(200);
});

it("checks a pinned certificate once per connection, and leaves no listener on a kept-alive socket request after request", async () => {
	const identity = certs.selfSigned("pinned-partner");
	const { server, connections } = await countingOkServer(identity.keyPem, identity.certPem);
	const pin = new X509Certificate(identity.certPem).fingerprint256.replaceAll(":", "").toLowerCase();
	const post = (pinnedSha256: string) =>
		postAs2({
			url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
			guard,
			headers: [["content-type", "text/plain"]],
			body: {
				size: 2,
				async *open() {
					yield new TextEncoder().encode("hi");
				},
			},
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 10_000,
			tls: { caPem: null, pinnedSha256 },
		});
	const warnings: string[] = [];
	const onWarning = (warning: Error) => warnings.push(warning.name);
	process.on("warning", onWarning);
	try {
		// More requests than an emitter's default limit of 10 listeners, over one connection.
		for (let i = 0; i < 15; i++) expect((await post(pin)).status).toBe(200);
		// A `secureConnect` listener per request stayed on the reused socket (it never connects
		// again): the warning at the 11th, and the socket holding one closure per message it carried.
		await new Promise((resolve) => setImmediate(resolve));
	} finally {
		process.off("warning", onWarning);
	}
	expect(connections()).toBe(1);
	expect(warnings).not.toContain("MaxListenersExceededWarning");
	// The pin is still enforced on a new connection (another pin: another agent, another socket).
	await expect(post("00".repeat(32))).rejects.toThrow(/pinned/);
});

it("verifies the partner by its CA over a kept-alive connection, and never reuses that connection under another CA", async () => {
	const { server, connections } = await countingOkServer(readFileSync(pki.keyPath), readFileSync(pki.certPath));
	const post = (caPem: string | null) =>
		postAs2({
			...fourByteExchange(`https://127.0.0.1:${(server.address() as AddressInfo).port}/as2`),
			tls: { caPem, pinnedSha256: null },
		});
	for (let i = 0; i < 3; i++) expect((await post(pki.caPem)).status).toBe(200);
	expect(connections()).toBe(1);
	// Another CA (the connection to the same address stays in the first CA's pool), and none:
	// neither the system roots nor the kept-alive socket vouch for this server.
	const otherCa = certs.selfSigned("another-ca").certPem;
	await expect(post(otherCa)).rejects.toThrow(/certificate/);
	await expect(post(null)).rejects.toThrow(/certificate/);
	expect(connections()).toBe(1);
});

/** A partner that reads the whole body and answers `ok`, counting the requests it got. */
async function countingPartner(holdAnswer = false) {
	let requests = 0;
	const server = createServer((req, res) => {
		requests++;
		req.resume();
		req.on("end", () => {
			if (!holdAnswer) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () =>
		new Promise((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		});
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`, requests: () => requests };
}

const fourBytes = {
	size: 4,
	async *open() {
		yield new Uint8Array([1, 2, 3, 4]);
	},
};

/** A four-byte exchange with the test partner, with generous timeouts the signal must beat. */
const fourByteExchange = (url: string) => ({
	url,
	guard,
	headers: [],
	body: fourBytes,
	idleTimeoutMs: 10_000,
	totalTimeoutMs: 60_000,
});

it("stops on the caller's signal, already aborted or aborted in flight, without calling it a timeout", async () => {
	const partner = await countingPartner(true);
	const common = fourByteExchange(partner.url);
	const already = await postAs2({ ...common, signal: AbortSignal.abort(new Error("lease lost")) }).catch((e) => e);
	expect(already.code).toBe("PARTNER_UNREACHABLE");
	expect(already.message).not.toMatch(/within/);

	const lease = new AbortController();
	const inFlight = postAs2({ ...common, signal: lease.signal }).catch((e) => e);
	for (let i = 0; i < 500 && partner.requests() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
	expect(partner.requests()).toBe(1);
	lease.abort(new Error("lease lost"));
	const stopped = await inFlight;
	expect(stopped.code).toBe("PARTNER_UNREACHABLE");
	expect(stopped.message).not.toMatch(/within/);
});

it("opens no connection for an exchange whose signal is already aborted (a lease lost before sending)", async () => {
	const partner = await countingPartner();
	let lookups = 0;
	const counting: typeof guard = {
		...guard,
		lookup: ((...args: Parameters<typeof guard.lookup>) => {
			lookups++;
			return guard.lookup(...args);
		}) as typeof guard.lookup,
	};
	// By name, so that a connection starts with a lookup through the guard.
	const exchange = { ...fourByteExchange(partner.url.replace("127.0.0.1", "localhost")), guard: counting };
	const refused = await postAs2({ ...exchange, signal: AbortSignal.abort(new Error("lease lost")) }).catch((e) => e);
	expect(refused.code).toBe("PARTNER_UNREACHABLE");
	expect(lookups).toBe(0);
	// The same exchange, not aborted, does look the partner up: the count above could have moved.
	expect((await postAs2(exchange)).status).toBe(200);
	expect(lookups).toBe(1);
});

it("leaves no listener on the caller's signal once the exchange is over", async () => {
	const partner = await countingPartner();
	const lease = new AbortController();
	let listeners = 0;
	const add = lease.signal.addEventListener.bind(lease.signal);
	const remove = lease.signal.removeEventListener.bind(lease.signal);
	lease.signal.addEventListener = (...args: Parameters<AbortSignal["addEventListener"]>) => {
		listeners++;
		add(...args);
	};
	lease.signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
		listeners--;
		remove(...args);
	};
	for (let i = 0; i < 3; i++) {
		const result = await postAs2({ ...fourByteExchange(partner.url), signal: lease.signal });
		expect(result.status).toBe(200);
	}
	expect(listeners).toBe(0);
});

it("writes a body given whole in one end, with Content-Length or chunked, and never opens it", async () => {
	const seen: Array<{ length: string | undefined; chunked: boolean; body: Buffer }> = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			seen.push({
				length: req.headers["content-length"],
				chunked: req.headers["transfer-encoding"] === "chunked",
				body: Buffer.concat(chunks),
			});
			res.writeHead(200, { "content-type": "text/plain" }).end("ok");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => new Promise((resolve) => server.close(() => resolve()));
	const bytes = new Uint8Array(3000).map((_, i) => i % 251);
	let wholes = 0;
	const body = {
		size: bytes.byteLength,
		open(): AsyncIterable<Uint8Array> {
			throw new Error("a body given whole is not opened");
		},
		whole() {
			wholes++;
			return bytes;
		},
	};
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`;
	for (const chunked of [false, true]) {
		const result = await postAs2({
			url,
			guard,
			headers: [],
			body,
			chunked,
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 10_000,
		});
		expect(result.status).toBe(200);
	}
	expect(wholes).toBe(2);
	expect(seen.map((s) => [s.length, s.chunked])).toEqual([
		["3000", false],
		[undefined, true],
	]);
	for (const s of seen) expect(s.body.equals(bytes)).toBe(true);
});

it("does not take a body given whole when the exchange is stopped before it starts", async () => {
	const partner = await countingPartner();
	let wholes = 0;
	const body = {
		...fourBytes,
		whole() {
			wholes++;
			return new Uint8Array([1, 2, 3, 4]);
		},
	};
	const stopped = await postAs2({
		...fourByteExchange(partner.url),
		body,
		signal: AbortSignal.abort(new Error("lease lost")),
	}).catch((e) => e);
	expect(stopped.code).toBe("PARTNER_UNREACHABLE");
	expect(wholes).toBe(0);
	expect(partner.requests()).toBe(0);
});

it("reads the partner's answer whole, refuses one past maxResponseBytes, and fails on an answer cut short", async () => {
	const answers: Record<string, (res: ServerResponse) => void> = {
		"/whole": (res) => {
			res.writeHead(200, { "content-type": "text/plain" });
			res.write("first part, ");
			res.end("second part");
		},
		"/large": (res) => res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5_000)),
		// Promises 1,000 bytes, sends 10, and drops the connection.
		"/cut": (res) => {
			res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
			res.write("ten bytes.", () => res.socket?.destroy());
		},
	};
	const server = createServer((req, res) => {
		req.resume();
		req.on("end", () => answers[req.url ?? ""]!(res));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => {
		server.closeAllConnections();
		return new Promise((resolve) => server.close(() => resolve()));
	};
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const post = (path: string) =>
		postAs2({
			url: `${base}${path}`,
			guard,
			headers: [],
			body: { size: 2, open: async function* () {}, whole: () => new Uint8Array([1, 2]) },
			maxResponseBytes: 1_000,
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 10_000,
		});
	const whole = await post("/whole");
	expect(new TextDecoder().decode(whole.body)).toBe("first part, second part");
	await expect(post("/large")).rejects.toMatchObject({ code: "INVALID_MDN", message: /exceeds 1000 bytes/ });
	await expect(post("/cut")).rejects.toMatchObject({
		code: "PARTNER_UNREACHABLE",
		message: /reading the answer failed/,
	});
});
