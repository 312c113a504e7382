import { createHash, X509Certificate } from "node:crypto";
import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls, type PeerCertificate, type TLSSocket } from "node:tls";
import { RefusedTarget, type TargetGuard } from "../transport/target-guard.ts";

export interface ProbeStep {
	step: "dns" | "tcp" | "tls";
	status: "success" | "warning" | "failure";
	durationMs: number;
	details: Record<string, unknown>;
}

export interface ProbeResult {
	reachable: boolean;
	steps: ProbeStep[];
	/** Time to the last successful step (connect, or handshake for https). */
	responseTimeMs: number | null;
	/** For https: whether the certificate chain verified (custom CA honoured) and any pin matched. */
	tls: {
		verified: boolean;
		protocol: string | null;
		error: string | null;
		certificate: Record<string, unknown> | null;
	} | null;
	error: string | null;
}

export interface ProbeOptions {
	timeoutMs: number;
	/** The SSRF guard: the probe connects only to an address it passed. */
	guard: TargetGuard;
	/** PEM of a custom CA to verify the partner's certificate with. */
	caPem?: string | null;
	/** SHA-256 (hex) of the partner's leaf certificate DER, which must match. */
	pinnedSha256?: string | null;
	/** Stop after the TCP connect (partner validation only needs reachability). */
	tcpOnly?: boolean;
}

/**
 * DNS lookup, TCP connect and (for https) a TLS handshake against a partner endpoint, each a
 * timed step: what a partner `ping` test reports (interface spec, POST /v1/partners/{id}/test).
 * Every step is bounded by `timeoutMs`. The DNS step goes through the target guard, and the
 * connection is made to the address it checked: a partner test is no port scanner of our
 * network (a refused target is a failed `dns` step, and nothing is connected to).
 */
export async function probeEndpoint(url: string, options: ProbeOptions): Promise<ProbeResult> {
	const target = new URL(url);
	const host = target.hostname.replace(/^\[|\]$/g, "");
	const port = Number(target.port || (target.protocol === "https:" ? 443 : 80));
	const steps: ProbeStep[] = [];
	const started = performance.now();
	const elapsed = (from: number) => Math.round(performance.now() - from);

	let address: string;
	let t = performance.now();
	try {
		const found = (await withTimeout(options.guard.resolve(host), options.timeoutMs, "DNS lookup"))[0]!;
		address = found.address;
		steps.push({
			step: "dns",
			status: "success",
			durationMs: elapsed(t),
			details: { host, address, family: found.family },
		});
	} catch (error) {
		const refused = error instanceof RefusedTarget;
		const reason = refused ? `refused: ${messageOf(error)}` : messageOf(error);
		steps.push({ step: "dns", status: "failure", durationMs: elapsed(t), details: { host, error: reason } });
		return {
			reachable: false,
			steps,
			responseTimeMs: null,
			tls: null,
			error: refused ? reason : `DNS lookup of ${host} failed: ${reason}`,
		};
	}

	t = performance.now();
	try {
		const socket = await open(() => connectTcp({ host: address, port }), "connect", options.timeoutMs, "TCP connect");
		socket.destroy();
		steps.push({ step: "tcp", status: "success", durationMs: elapsed(t), details: { address, port } });
	} catch (error) {
		steps.push({
			step: "tcp",
			status: "failure",
			durationMs: elapsed(t),
			details: { address, port, error: messageOf(error) },
		});
		return {
			reachable: false,
			steps,
			responseTimeMs: null,
			tls: null,
			error: `cannot connect to ${address}:${port}: ${messageOf(error)}`,
		};
	}
	if (options.tcpOnly || target.protocol !== "https:") {
		if (target.protocol !== "https:") {
			steps.push({ step: "tls", status: "warning", durationMs: 0, details: { message: "plain http: no TLS" } });
		}
		return { reachable: true, steps, responseTimeMs: elapsed(started), tls: null, error: null };
	}

	t = performance.now();
	let socket: TLSSocket | null = null;
	try {
		socket = await open(
			() =>
				connectTls({
					host: address,
					port,
					servername: isIp(host) ? undefined : host,
					...(options.caPem ? { ca: options.caPem } : {}),
					minVersion: "TLSv1.2",
					// Verify by hand below, so an unverified chain is reported rather than thrown.
					rejectUnauthorized: false,
				}),
			"secureConnect",
			options.timeoutMs,
			"TLS handshake",
		);
		const peer = socket.getPeerCertificate();
		const pinOk = !options.pinnedSha256 || fingerprintOf(peer) === options.pinnedSha256;
		const verified = socket.authorized && pinOk;
		const error = !socket.authorized
			? String(socket.authorizationError)
			: pinOk
				? null
				: "the certificate does not match the pinned fingerprint";
		const tls = { verified, protocol: socket.getProtocol(), error, certificate: describePeer(peer) };
		steps.push({
			step: "tls",
			status: verified ? "success" : "failure",
			durationMs: elapsed(t),
			details: { protocol: tls.protocol, verified, ...(error ? { error } : {}), certificate: tls.certificate },
		});
		return { reachable: true, steps, responseTimeMs: elapsed(started), tls, error: verified ? null : `TLS: ${error}` };
	} catch (error) {
		steps.push({ step: "tls", status: "failure", durationMs: elapsed(t), details: { error: messageOf(error) } });
		return {
			reachable: true,
			steps,
			responseTimeMs: null,
			tls: { verified: false, protocol: null, error: messageOf(error), certificate: null },
			error: `TLS handshake failed: ${messageOf(error)}`,
		};
	} finally {
		socket?.destroy();
	}
}

function open<S extends Socket>(make: () => S, ready: string, timeoutMs: number, what: string): Promise<S> {
	return new Promise((resolve, reject) => {
		const socket = make();
		const timer = setTimeout(() => {
			socket.destroy();
			reject(new Error(`${what} timed out after ${timeoutMs} ms`));
		}, timeoutMs);
		socket.once(ready, () => {
			clearTimeout(timer);
			resolve(socket);
		});
		socket.once("error", (error) => {
			clearTimeout(timer);
			socket.destroy();
			reject(error);
		});
	});
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
		promise.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}

function fingerprintOf(peer: PeerCertificate): string | null {
	return peer.raw ? createHash("sha256").update(peer.raw).digest("hex") : null;
}

function describePeer(peer: PeerCertificate): Record<string, unknown> | null {
	if (!peer.raw) return null;
	const x509 = new X509Certificate(peer.raw);
	return {
		subject: x509.subject.replace(/\n/g, ", "),
		issuer: x509.issuer.replace(/\n/g, ", "),
		valid_to: new Date(x509.validTo).toISOString(),
		sha256: fingerprintOf(peer),
	};
}

function isIp(host: string): boolean {
	return /^[\d.]+$/.test(host) || host.includes(":");
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
