/**
 * Partners that answer with async MDNs, for black-box suites that play the partner: each partner
 * posts to a loopback endpoint of the test and sends its MDN to the server's `/as2/receive`
 * later, so that a sent message waits in `sent` / `pending` for whatever MDN the test posts.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import { startBuiltServer } from "./built-server.ts";
import { call, createKey, register } from "./clients.ts";

export interface AsyncMdnPartners {
	/** A live partner with its certificate (usage both), async MDN; `settings` override the body. */
	create(as2Id: string, settings?: Record<string, unknown>): Promise<string>;
	// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
	detail(id: string): Promise<any>;
	/** Sends a live message and waits (bounded, 30 s) until the partner has it and it awaits its MDN. */
	// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
	sent(partnerId: string, payload: { content_type: string; content: string }): Promise<any>;
}

/**
 * `base` is the server's, `endpointPort` the test's partner endpoint on 127.0.0.1, `token` a live
 * key and `certificatePem` the partner's certificate.
 */
export function asyncMdnPartners(options: {
	base: () => string;
	token: () => string;
	endpointPort: () => number;
	certificatePem: string;
}): AsyncMdnPartners {
	const as = () => ({ token: options.token() });
	async function detail(id: string) {
		return (await call(options.base(), "GET", `/v1/messages/${id}`, as())).json.data;
	}
	return {
		async create(as2Id, settings = {}) {
			const created = await call(options.base(), "POST", "/v1/partners", {
				...as(),
				body: {
					name: as2Id,
					as2_id: as2Id,
					url: `http://127.0.0.1:${options.endpointPort()}/as2`,
					mdn_mode: "async",
					mdn: { signed: true, url: `${options.base()}/as2/receive` },
					...settings,
				},
			});
			expect(created.status, created.text).toBe(201);
			const id = created.json.data.id;
			const certificate = await call(options.base(), "POST", `/v1/partners/${id}/certificates`, {
				...as(),
				body: { name: "partner", usage: "both", certificate: options.certificatePem },
			});
			expect(certificate.status, certificate.text).toBe(201);
			return id;
		},
		detail,
		async sent(partnerId, { content_type, content }) {
			const sent = await call(options.base(), "POST", "/v1/messages", {
				...as(),
				body: { partner_id: partnerId, content_type, payload: { content } },
			});
			expect(sent.status, sent.text).toBe(202);
			const deadline = Date.now() + 30_000;
			for (;;) {
				const message = await detail(sent.json.data.id);
				if (message.status !== "queued" && message.status !== "processing") {
					expect(message).toMatchObject({ status: "sent", mdn_status: "pending" });
					return message;
				}
				if (Date.now() > deadline) throw new Error("the message was not sent in 30 s");
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		},
	};
}

/**
 * The world of a black-box suite that plays a partner: a partner endpoint on 127.0.0.1 (that
 * answers 200 and hands each body to `onDelivery`), the built server allowed to reach it, a
 * registered account with a live key, the tenant's AS2 id, and our identity certificate written
 * to `certDir/<name>-identity.pem` for OpenSSL. `stop()` stops both servers.
 */
export async function startPartnerWorld(options: {
	name: string;
	certDir: string;
	onDelivery?: (delivery: { contentType: string; body: Buffer }) => void;
}) {
	const endpoint = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			options.onDelivery?.({ contentType: String(req.headers["content-type"]), body: Buffer.concat(chunks) });
			res.writeHead(200, { "content-type": "text/plain" }).end("received");
		});
	});
	await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
	const server = await startBuiltServer({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	const user = await register(server.base);
	const liveKey = await createKey(server.base, user.token, {
		scope: "account",
		environment: "live",
		permissions: ["*"],
	});
	const as = { token: liveKey };
	const tenantAs2Id: string = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, as)).json.data.as2_id;
	const identity = (await call(server.base, "GET", "/v1/certificates?type=identity", as)).json.data[0];
	const ourCertPath = join(options.certDir, `${options.name}-identity.pem`);
	writeFileSync(ourCertPath, identity.certificate_pem);
	return {
		server,
		endpointPort: (endpoint.address() as AddressInfo).port,
		liveKey,
		tenantAs2Id,
		ourCertPath,
		async stop() {
			await server.stop();
			await new Promise<void>((resolve) => endpoint.close(() => resolve()));
		},
	};
}
