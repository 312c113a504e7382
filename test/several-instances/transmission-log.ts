/**
 * An HTTPS relay in front of the receiving server that logs every AS2 POST with its
 * Message-ID and when it started and ended: the attempts log from which the test checks that
 * no message was ever being sent by two workers at once.
 */
import { readFileSync } from "node:fs";
import { createServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import type { TestPki } from "../../packages/server/test/helpers/tls.ts";

export interface Transmission {
	messageId: string;
	start: number;
	end: number;
	status: number;
}

export interface TransmissionLog {
	url: string;
	transmissions: Transmission[];
	close(): Promise<void>;
}

export async function startTransmissionLog(target: string, pki: TestPki): Promise<TransmissionLog> {
	const transmissions: Transmission[] = [];
	const server = createServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (req, res) => {
		const start = performance.now();
		// Without the angle brackets, as the API shows Message-IDs.
		const messageId = String(req.headers["message-id"] ?? "").replace(/^<(.*)>$/, "$1");
		let status = 0;
		// One record per attempt, when its response is finished or its connection is gone (a
		// sender killed mid-request: the attempt ends there, status 0).
		res.on("close", () =>
			transmissions.push({ messageId, start, end: performance.now(), status: res.writableFinished ? status : 0 }),
		);
		const upstream = httpsRequest(
			new URL(req.url ?? "/", target),
			{ method: req.method, headers: req.headers, ca: pki.caPem, timeout: 60_000 },
			(answer) => {
				status = answer.statusCode ?? 502;
				res.writeHead(status, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on("error", () => {
			status = 502;
			if (!res.headersSent) res.writeHead(502);
			res.end();
		});
		res.on("close", () => {
			if (!res.writableFinished) upstream.destroy();
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `https://127.0.0.1:${port}`,
		transmissions,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** Pairs of attempts of one Message-ID whose time spans overlap: two senders at once. */
export function overlappingAttempts(transmissions: readonly Transmission[]): string[] {
	const byId = new Map<string, Transmission[]>();
	for (const t of transmissions) byId.set(t.messageId, [...(byId.get(t.messageId) ?? []), t]);
	const overlaps: string[] = [];
	for (const [messageId, attempts] of byId) {
		const sorted = [...attempts].sort((a, b) => a.start - b.start);
		for (let i = 1; i < sorted.length; i++) {
			if (sorted[i]!.start < sorted[i - 1]!.end) overlaps.push(messageId);
		}
	}
	return overlaps;
}
