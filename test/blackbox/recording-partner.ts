/**
 * The set-up of the black-box tests that read what we send with the OpenSSL CLI: the built
 * server with a live key, and a partner whose AS2 endpoint on 127.0.0.1 keeps every request it
 * is sent and answers 200 without an MDN (the partner's `mdn_mode` is none).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, register } from "./clients.ts";

export interface ReceivedRequest {
	contentType: string;
	body: Buffer;
}

export interface RecordingPartnerWorld {
	server: BuiltServer;
	liveKey: string;
	partnerId: string;
	/** Every request the partner's endpoint got, in order. */
	received: ReceivedRequest[];
	/** Waits (bounded, 30 s) for the partner to receive one more request than `before`; returns it. */
	nextReceived(before: number): Promise<ReceivedRequest>;
	stop(): Promise<void>;
}

export async function startRecordingPartnerWorld(partner: {
	name: string;
	as2_id: string;
	sign: boolean;
	encrypt: boolean;
}): Promise<RecordingPartnerWorld> {
	const received: ReceivedRequest[] = [];
	const endpoint = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			received.push({ contentType: String(req.headers["content-type"]), body: Buffer.concat(chunks) });
			res.writeHead(200, { "content-type": "text/plain" }).end("received");
		});
	});
	await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
	const closeEndpoint = () => new Promise<void>((resolve) => endpoint.close(() => resolve()));
	let server: BuiltServer | undefined;
	try {
		server = await startBuiltServer({
			env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
		});
		const user = await register(server.base);
		const liveKey = await createKey(server.base, user.token, {
			scope: "account",
			environment: "live",
			permissions: ["*"],
		});
		const created = await call(server.base, "POST", "/v1/partners", {
			token: liveKey,
			body: {
				...partner,
				url: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/as2`,
				mdn_mode: "none",
			},
		});
		expect(created.status, created.text).toBe(201);
		const running = server;
		return {
			server: running,
			liveKey,
			partnerId: created.json.data.id,
			received,
			async nextReceived(before) {
				for (let i = 0; i < 300 && received.length === before; i++) await new Promise((r) => setTimeout(r, 100));
				expect(received.length, "the partner got the message within 30 s").toBe(before + 1);
				return received[before]!;
			},
			async stop() {
				await running.stop();
				await closeEndpoint();
			},
		};
	} catch (error) {
		await server?.stop();
		await closeEndpoint();
		throw error;
	}
}
