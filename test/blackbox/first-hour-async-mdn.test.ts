/**
 * Issue #18 §1, "Async MDNs out of the box": with AS2_PUBLIC_URL unset, a live message that
 * asks for an async MDN is sent (it failed with INVALID_AS2_HEADERS) and asks for it at the
 * listener's own address (the AS2_PORT listener when there is one), with a warning at start;
 * the partner's MDN posted to that address delivers the message. The partner is a loopback
 * endpoint of this file (AS2_ALLOW_PRIVATE_TARGETS=1).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildMdn } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { type BuiltServer, type StartOptions, startBuiltServer } from "./built-server.ts";
import { call, createKey, register } from "./clients.ts";

let partnerEndpoint: Server;
const received: IncomingHttpHeaders[] = [];
const servers: BuiltServer[] = [];

beforeAll(async () => {
	partnerEndpoint = createServer((req, res) => {
		received.push(req.headers);
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("received"));
	});
	await new Promise<void>((resolve) => partnerEndpoint.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
	for (const server of servers) await server.stop();
	await new Promise<void>((resolve) => partnerEndpoint.close(() => resolve()));
});

async function start(env: Record<string, string> = {}): Promise<BuiltServer> {
	const options: StartOptions = {
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional", ...env },
	};
	const server = await startBuiltServer(options);
	servers.push(server);
	return server;
}

// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
type MessageDetail = any;

/** Sends a live message to a partner without its own `mdn.url`; returns its detail once it left. */
async function sendAsync(
	server: BuiltServer,
	as2Id: string,
): Promise<{ message: MessageDetail; key: string; tenantAs2Id: string }> {
	const user = await register(server.base);
	const key = await createKey(server.base, user.token, { scope: "account", environment: "live", permissions: ["*"] });
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: key,
		body: {
			name: as2Id,
			as2_id: as2Id,
			url: `http://127.0.0.1:${(partnerEndpoint.address() as AddressInfo).port}/as2`,
			sign: false,
			encrypt: false,
			mdn_mode: "async",
			mdn: { signed: false },
		},
	});
	expect(partner.status, partner.text).toBe(201);
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: key,
		body: { partner_id: partner.json.data.id, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
	});
	expect(sent.status, sent.text).toBe(202);
	let message: MessageDetail;
	await waitFor(async () => {
		message = (await call(server.base, "GET", `/v1/messages/${sent.json.data.id}`, { token: key })).json.data;
		return message.status !== "queued" && message.status !== "processing";
	}, "the message to leave");
	const tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: key })).json.data.as2_id;
	return { message, key, tenantAs2Id };
}

const warning = /AS2_PUBLIC_URL is not set: async MDNs are asked to come back to this listener's own address/;

describe("async MDNs without AS2_PUBLIC_URL", () => {
	it("asks for the MDN at the listener, warns at start, and the MDN posted there delivers", async () => {
		const server = await start();
		expect(server.output()).toMatch(warning);
		const receiptUrl = `${server.base}/as2/receive`;
		expect(server.output()).toContain(`"receiptUrl":"${receiptUrl}"`);

		const { message, key, tenantAs2Id } = await sendAsync(server, "ASYNCPARTNER");
		expect(message).toMatchObject({ status: "sent", mdn_status: "pending", error_code: null });
		expect(received.at(-1)?.["receipt-delivery-option"]).toBe(receiptUrl);

		const mdn = buildMdn({
			original: {
				messageId: message.message_id,
				from: tenantAs2Id,
				to: "ASYNCPARTNER",
				mdnRequest: {
					mode: "async",
					url: receiptUrl,
					notificationTo: "as2@as2kit.local",
					signed: false,
					micAlgorithms: ["sha256"],
				},
			},
			disposition: { type: "processed" },
		});
		const answer = await fetch(receiptUrl, {
			method: "POST",
			headers: Object.fromEntries(mdn.headers),
			body: Buffer.from(mdn.body),
			signal: AbortSignal.timeout(30_000),
		});
		expect(answer.status, await answer.text()).toBe(200);
		const delivered = await call(server.base, "GET", `/v1/messages/${message.id}`, { token: key });
		expect(delivered.json.data).toMatchObject({ status: "delivered", mdn_status: "received" });
	});

	it("names the AS2_PORT listener when there is one", async () => {
		const server = await start({ AS2_PORT: "0" });
		const as2Port = Number(/"as2Port":(\d+)/.exec(server.output())?.[1]);
		expect(as2Port).toBeGreaterThan(0);
		expect(as2Port).not.toBe(server.port);
		const { message } = await sendAsync(server, "ASYNCAS2PORT");
		expect(message.status).toBe("sent");
		expect(received.at(-1)?.["receipt-delivery-option"]).toBe(`http://127.0.0.1:${as2Port}/as2/receive`);
	});

	it("uses AS2_PUBLIC_URL when it is set, without the warning", async () => {
		const server = await start({ AS2_PUBLIC_URL: "https://as2.example.com" });
		expect(server.output()).not.toMatch(warning);
		const { message } = await sendAsync(server, "ASYNCPUBLIC");
		expect(message.status).toBe("sent");
		expect(received.at(-1)?.["receipt-delivery-option"]).toBe("https://as2.example.com/as2/receive");
	});
});
