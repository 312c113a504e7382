import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { MessageRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { scratchDir } from "../../../../test/setup/scratch-dirs.ts";
import { configFromEnv } from "../../src/node/config-from-env.ts";
import { type RunningServer, startServer } from "../../src/node/create-server.ts";
import { type Logger, SILENT_LOGGER } from "../../src/service/deps.ts";
import { makeCertificates } from "./certs.ts";
import { openKeyScope, poolRsaKeyGeneration } from "./rsa-key-pool.ts";
import { createTestPki, type TestPki } from "./tls.ts";
import { eventually } from "./worker.ts";

// Tenant identities of the in-process servers from the run's pool of RSA keys.
poolRsaKeyGeneration();

/** A free TCP port on 127.0.0.1 (bound, noted, released). */
export async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	await new Promise((resolve) => server.close(resolve));
	return port;
}

export interface Peer {
	name: string;
	server: RunningServer;
	baseUrl: string;
	/** A live account key with every permission. */
	key: string;
	tenantId: string;
	accountId: string;
	as2Id: string;
	identityPem: string;
	// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
	call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }>;
}

/**
 * A real reference server over HTTPS on loopback (TLS from a throwaway CA), with its own
 * SQLite database and blob directory, a registered tenant and a live key.
 */
export async function startPeer(
	name: string,
	pki: TestPki,
	env: Record<string, string> = {},
	options: { logger?: Logger } = {},
): Promise<Peer> {
	const dir = scratchDir(`as2kit-peer-${name}-`);
	const closeKeyScope = openKeyScope();
	const port = await freePort();
	const baseUrl = `https://127.0.0.1:${port}`;
	const server = await startServer(
		configFromEnv({
			PORT: String(port),
			DATABASE_URL: join(dir, "as2.sqlite"),
			BLOB_DIR: join(dir, "blobs"),
			AS2_DATA_DIR: dir,
			// The root store inside a transaction fails, as in every test (test/setup/check-transactions.ts).
			AS2_CHECK_TRANSACTIONS: "1",
			TLS_CERT_FILE: pki.certPath,
			TLS_KEY_FILE: pki.keyPath,
			AS2_PUBLIC_URL: baseUrl,
			AS2_ALLOW_HTTP: "1",
			// Loopback partners and MDN receipts are private addresses: allowed for this test deployment.
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "enterprise",
			...env,
		}),
		{ logger: options.logger ?? SILENT_LOGGER },
	);
	const call: Peer["call"] = async (method, path, body) => {
		const response = await server.app.request(path, {
			method,
			headers: {
				authorization: `Bearer ${key}`,
				...(body === undefined ? {} : { "content-type": "application/json" }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		let json: unknown = null;
		try {
			json = JSON.parse(text);
		} catch {}
		return { status: response.status, json, text };
	};
	let key = "";
	const registered = await server.app.request("/auth/register", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			name,
			email: `${name.toLowerCase()}@example.com`,
			password: "long password",
			password_confirmation: "long password",
		}),
	});
	const { token, tenant } = (await registered.json()) as { token: string; tenant: { id: string } };
	key = token;
	const created = await call("POST", "/v1/api-keys", {
		name: "e2e",
		scope: "account",
		environment: "live",
		permissions: ["*"],
	});
	if (created.status !== 201) throw new Error(`key: ${created.status} ${created.text}`);
	key = created.json.data.key;
	const tenantRecord = (await call("GET", `/v1/tenants/${tenant.id}`)).json.data;
	const identity = (await call("GET", "/v1/certificates?type=identity")).json.data[0];
	const peer: Peer = {
		name,
		server,
		baseUrl,
		key,
		tenantId: tenant.id,
		accountId: tenantRecord.account_id,
		as2Id: tenantRecord.as2_id,
		identityPem: identity.certificate_pem,
		call,
	};
	const originalClose = server.close.bind(server);
	server.close = async () => {
		const drained = await originalClose();
		rmSync(dir, { recursive: true, force: true });
		closeKeyScope();
		return drained;
	};
	return peer;
}

/** Makes `from` a partner of `to`'s tenant (URL, CA, the identity certificate), with `settings`. */
export async function addPartner(
	on: Peer,
	other: Peer,
	pki: TestPki,
	settings: Record<string, unknown> = {},
): Promise<string> {
	const partner = await on.call("POST", "/v1/partners", {
		name: other.name,
		as2_id: other.as2Id,
		url: `${other.baseUrl}/as2/receive`,
		tls: { ca_certificate: pki.caPem },
		...settings,
	});
	if (partner.status !== 201) throw new Error(`partner: ${partner.text}`);
	const certificate = await on.call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
		name: `${other.name} identity`,
		usage: "both",
		certificate: other.identityPem,
	});
	if (certificate.status !== 201) throw new Error(`certificate: ${certificate.text}`);
	return partner.json.data.id;
}

export async function startPair(env: Record<string, string> = {}) {
	const pki = createTestPki();
	const a = await startPeer("Alpha", pki, env);
	const b = await startPeer("Beta", pki, env);
	return {
		pki,
		a,
		b,
		async close() {
			await Promise.all([a.server.close(), b.server.close()]);
			rmSync(pki.dir, { recursive: true, force: true });
		},
	};
}

/** POSTs a signed and encrypted text message from `from` to its partner `partnerId`; the new message's id. */
export async function sendMessage(from: Peer, partnerId: string, overrides: Record<string, unknown> = {}) {
	const response = await from.call("POST", "/v1/messages", {
		partner_id: partnerId,
		content_type: "text/plain",
		payload: { content: "hello partner" },
		sign: true,
		encrypt: true,
		...overrides,
	});
	expect(response.status, response.text).toBe(202);
	return response.json.data.id as string;
}

/** Waits until `peer`'s message `id` reaches one of `statuses`. */
export async function settled(peer: Peer, id: string, statuses = ["delivered", "failed"]): Promise<MessageRecord> {
	return eventually(
		async () => {
			const m = await peer.server.store.messages.get(peer.tenantId, id);
			return m && statuses.includes(m.status) ? m : null;
		},
		`${id} to reach ${statuses.join("/")}`,
		60_000,
	);
}

/**
 * Runs `fn` while `peer` knows its partner `partnerId` only by an impostor's certificate (one
 * the partner does not sign with), then deletes it and reactivates the partner's own.
 */
export async function withImpostorCertificate<T>(
	peer: Peer,
	partnerId: string,
	name: string,
	fn: () => Promise<T>,
): Promise<T> {
	const certs = (await peer.call("GET", `/v1/partners/${partnerId}/certificates`)).json.data as { id: string }[];
	for (const c of certs) await peer.call("POST", `/v1/certificates/${c.id}/deactivate`);
	const impostor = await peer.call("POST", `/v1/partners/${partnerId}/certificates`, {
		name: "wrong",
		usage: "both",
		certificate: makeCertificates().selfSigned(name).certPem,
	});
	try {
		return await fn();
	} finally {
		await peer.call("DELETE", `/v1/certificates/${impostor.json.data.id}`);
		for (const c of certs) await peer.call("POST", `/v1/certificates/${c.id}/activate`);
	}
}
