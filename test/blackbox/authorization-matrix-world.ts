/**
 * The world the authorization matrix runs in, built once per file through the API of the
 * built server: account A with tenants A1 (its first) and A2, account B with tenant B1, in each
 * tenant one object of every kind, a master partner per account, and one credential of every
 * kind of account A (README, "Who may do what"), all acting from tenant A1.
 *
 * Every URL the server may call (partners, webhook endpoints) points at a loopback HTTP sink
 * this module runs, so nothing the matrix triggers leaves the machine.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, createKey, type JsonResponse, register } from "./clients.ts";

export type TenantName = "A1" | "A2" | "B1";
export type AccountName = "A" | "B";
/** Whose object a request addresses, seen from the credential (which works in A1). */
export type Relation = "own" | "sibling" | "other";
export const RELATION_TENANT: Record<Relation, TenantName> = { own: "A1", sibling: "A2", other: "B1" };
export const RELATION_ACCOUNT: Record<Relation, AccountName> = { own: "A", sibling: "A", other: "B" };

/** One tenant's objects, each the target of the operations on its kind. */
export interface TenantObjects {
	id: string;
	/** Changed, toggled, tested by the partner operations. */
	partner: string;
	/** Named by message and certificate bodies; never changed. */
	sendTo: string;
	certificate: string;
	message: string;
	webhook: string;
	delivery: string;
	/** A test-environment tenant key, never used to call: the target of key revocations. */
	key: string;
}

export interface AccountObjects {
	id: string;
	ownerToken: string;
	email: string;
	password: string;
	master: string;
}

/** A credential kind of account A (README, Who may do what). */
export interface Credential {
	name: string;
	token: string;
	kind: "session" | "api_key";
	scope: "account" | "tenant";
	environment: "test" | "live";
	permissions: readonly string[];
	/** The tenants an account credential reaches; a tenant key reaches A1. */
	tenants: readonly TenantName[];
	/** Why authentication refuses it, if it does. */
	refusedWith?: "invalid_api_key" | "expired_api_key";
}

export interface World {
	base: string;
	sinkUrl: string;
	pem: string;
	accounts: Record<AccountName, AccountObjects>;
	tenants: Record<TenantName, TenantObjects>;
	credentials: Credential[];
	/** Fresh objects for requests that consume theirs (a DELETE that is allowed). */
	fresh: {
		partner(tenant: TenantName): Promise<string>;
		certificate(tenant: TenantName): Promise<string>;
		webhook(tenant: TenantName): Promise<string>;
		key(tenant: TenantName): Promise<string>;
		master(account: AccountName): Promise<string>;
		/** A message queued for tomorrow (never sent: the matrix server runs no worker). */
		message(tenant: TenantName): Promise<string>;
		/** A message cancelled before it was sent (failed CANCELLED): what a resend takes. */
		cancelledMessage(tenant: TenantName): Promise<string>;
		/** A new session of A's owner. */
		session(): Promise<string>;
	};
	/** Requests made to build the world, for the report. */
	requests(): number;
	close(): Promise<void>;
}

/**
 * The body of a request to an operation that takes none. fetch frames a bodiless POST with
 * Content-Length: 0 but a bodiless DELETE with no framing at all, which the server answered 415
 * (issue #16, defect 6, the operations suite's subject): a DELETE carries `{}`, which every
 * server reads as an empty JSON object, so that this suite's answers are about authorization.
 */
export const bodyOfBodiless = (method: string): unknown => (method === "DELETE" ? {} : undefined);

/** How long the expiring key lives: long enough to be created on a loaded machine. */
const EXPIRY_MS = 8_000;
const EXPIRY_WAIT_MS = 60_000;

export async function buildWorld(base: string): Promise<World> {
	let requests = 0;
	const sink = await startSink();
	const scratch = mkdtempSync(join(tmpdir(), "as2kit-matrix-"));
	try {
		const pem = selfSignedPem(scratch);
		let serial = 0;
		const unique = () => `${process.pid}-${++serial}`;
		const ok = async (response: Promise<JsonResponse>, what: string): Promise<JsonResponse> => {
			requests++;
			const answer = await response;
			if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${answer.text}`);
			return answer;
		};
		const as = (token: string, tenantId?: string) => ({
			token,
			...(tenantId ? { headers: { "x-tenant-id": tenantId } } : {}),
		});

		const ownerA = await register(base, `Matrix A ${process.pid}`);
		const ownerB = await register(base, `Matrix B ${process.pid}`);
		requests += 4;
		// First, so that it has expired by the time the world is built.
		const expiresAt = new Date(Date.now() + EXPIRY_MS).toISOString();
		const expired = await createKey(base, ownerA.token, {
			scope: "account",
			environment: "live",
			permissions: ["*"],
			expires_at: expiresAt,
		});
		requests++;
		const a2 = (await ok(call(base, "POST", "/v1/tenants", { ...as(ownerA.token), body: { name: "Matrix A2" } }), "A2"))
			.json.data.id as string;

		const key = async (body: Record<string, unknown>) => {
			requests++;
			return createKey(base, ownerA.token, body);
		};
		const a1 = ownerA.tenantId;
		const live = { environment: "live", permissions: ["*"] };
		const credentials: Credential[] = [
			{
				name: "owner session",
				token: ownerA.token,
				kind: "session",
				scope: "account",
				environment: "test",
				permissions: ["*"],
				tenants: ["A1", "A2"],
			},
			{
				name: "account key (live)",
				token: await key({ scope: "account", ...live }),
				kind: "api_key",
				scope: "account",
				environment: "live",
				permissions: ["*"],
				tenants: ["A1", "A2"],
			},
			{
				name: "account key (test)",
				token: await key({ scope: "account", environment: "test", permissions: ["*"] }),
				kind: "api_key",
				scope: "account",
				environment: "test",
				permissions: ["*"],
				tenants: ["A1", "A2"],
			},
			{
				name: "account key restricted to A1",
				token: await key({ scope: "account", ...live, allowed_tenant_ids: [a1] }),
				kind: "api_key",
				scope: "account",
				environment: "live",
				permissions: ["*"],
				tenants: ["A1"],
			},
			{
				name: "tenant key (live)",
				token: await key({ scope: "tenant", tenant_id: a1, ...live }),
				kind: "api_key",
				scope: "tenant",
				environment: "live",
				permissions: ["*"],
				tenants: ["A1"],
			},
			{
				name: "tenant key (test)",
				token: await key({ scope: "tenant", tenant_id: a1, environment: "test", permissions: ["*"] }),
				kind: "api_key",
				scope: "tenant",
				environment: "test",
				permissions: ["*"],
				tenants: ["A1"],
			},
		];
		const readAll = [
			"accounts:read",
			"tenants:read",
			"partners:read",
			"certificates:read",
			"messages:read",
			"webhooks:read",
		];
		credentials.push(
			{
				name: "account key reading everything",
				token: await key({ scope: "account", environment: "live", permissions: readAll }),
				kind: "api_key",
				scope: "account",
				environment: "live",
				permissions: readAll,
				tenants: ["A1", "A2"],
			},
			{
				name: "tenant key with messages:write only",
				token: await key({ scope: "tenant", tenant_id: a1, environment: "live", permissions: ["messages:write"] }),
				kind: "api_key",
				scope: "tenant",
				environment: "live",
				permissions: ["messages:write"],
				tenants: ["A1"],
			},
		);
		const revoked = await key({ scope: "account", ...live });
		const revokedId = (await ok(call(base, "GET", "/v1/api-keys", as(ownerA.token)), "keys")).json.data[0].id;
		await ok(
			call(base, "DELETE", `/v1/api-keys/${revokedId}`, { ...as(ownerA.token), body: bodyOfBodiless("DELETE") }),
			"revoke",
		);
		const login = () =>
			ok(call(base, "POST", "/auth/login", { body: { email: ownerA.email, password: ownerA.password } }), "login").then(
				(r) => r.json.token as string,
			);
		const loggedOut = await login();
		await ok(call(base, "POST", "/auth/logout", as(loggedOut)), "logout");
		const refused = {
			kind: "api_key" as const,
			scope: "account" as const,
			environment: "live" as const,
			permissions: ["*"],
			tenants: ["A1", "A2"] as TenantName[],
		};
		credentials.push(
			{ name: "revoked account key", token: revoked, ...refused, refusedWith: "invalid_api_key" },
			{ name: "logged-out session", token: loggedOut, ...refused, kind: "session", refusedWith: "invalid_api_key" },
			{ name: "expired account key", token: expired, ...refused, refusedWith: "expired_api_key" },
		);

		const ownerOf = (tenant: TenantName) => (tenant === "B1" ? ownerB.token : ownerA.token);
		const tenantIds: Record<TenantName, string> = { A1: a1, A2: a2, B1: ownerB.tenantId };
		const inTenant = (tenant: TenantName) => as(ownerOf(tenant), tenantIds[tenant]);
		const partnerBody = () => ({
			name: `Matrix partner ${unique()}`,
			as2_id: `MATRIX-${unique()}`,
			url: `${sink.url}/as2`,
		});
		const newPartner = async (tenant: TenantName) =>
			(await ok(call(base, "POST", "/v1/partners", { ...inTenant(tenant), body: partnerBody() }), "partner")).json.data
				.id as string;
		const newWebhook = async (tenant: TenantName) =>
			(
				await ok(
					call(base, "POST", "/v1/webhook-endpoints", {
						...inTenant(tenant),
						// An event the matrix never causes: no delivery but the ones it asks for.
						body: { url: `${sink.url}/hook`, events: ["message.delivered"] },
					}),
					"webhook",
				)
			).json.data.id as string;
		const newKey = async (tenant: TenantName) =>
			(
				await ok(
					call(base, "POST", "/v1/api-keys", {
						token: ownerOf(tenant),
						body: {
							name: "revocation target",
							scope: "tenant",
							tenant_id: tenantIds[tenant],
							permissions: ["messages:read"],
						},
					}),
					"key",
				)
			).json.data.id as string;
		const accountIds: Record<AccountName, string> = { A: ownerA.accountId, B: ownerB.accountId };
		const newMaster = async (account: AccountName) =>
			(
				await ok(
					call(base, "POST", `/v1/accounts/${accountIds[account]}/partners`, {
						token: account === "A" ? ownerA.token : ownerB.token,
						body: partnerBody(),
					}),
					"master",
				)
			).json.data.id as string;

		const newMessage = async (tenant: TenantName, partnerId: string) =>
			(
				await ok(
					call(base, "POST", "/v1/messages", {
						...inTenant(tenant),
						body: {
							partner_id: partnerId,
							content_type: "text/plain",
							payload: { content: "matrix" },
							scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
						},
					}),
					"message",
				)
			).json.data.id as string;
		const objects = async (tenant: TenantName): Promise<TenantObjects> => {
			const [partner, sendTo, webhook, victim] = await Promise.all([
				newPartner(tenant),
				newPartner(tenant),
				newWebhook(tenant),
				newKey(tenant),
			]);
			const certificate = await newCertificate(partner);
			const message = await newMessage(tenant, sendTo);
			const delivery = (
				await ok(call(base, "POST", `/v1/webhook-endpoints/${webhook}/test`, inTenant(tenant)), "delivery")
			).json.data.delivery_id as string;
			return { id: tenantIds[tenant], partner, sendTo, certificate, message, webhook, delivery, key: victim };

			async function newCertificate(partnerId: string) {
				const body = { name: "matrix", type: "partner", usage: "both", partner_id: partnerId, certificate: pem };
				return (await ok(call(base, "POST", "/v1/certificates", { ...inTenant(tenant), body }), "certificate")).json
					.data.id as string;
			}
		};
		const [A1, A2, B1] = await Promise.all((["A1", "A2", "B1"] as const).map(objects));
		const tenants = { A1: A1!, A2: A2!, B1: B1! };
		const freshMessage = (tenant: TenantName) => newMessage(tenant, tenants[tenant].sendTo);
		const partnerOf = (tenant: TenantName) => tenants[tenant].partner;
		const accounts: Record<AccountName, AccountObjects> = {
			A: {
				id: ownerA.accountId,
				ownerToken: ownerA.token,
				email: ownerA.email,
				password: ownerA.password,
				master: await newMaster("A"),
			},
			B: {
				id: ownerB.accountId,
				ownerToken: ownerB.token,
				email: ownerB.email,
				password: ownerB.password,
				master: await newMaster("B"),
			},
		};
		await untilExpired(base, expired, expiresAt);
		requests++;

		return {
			base,
			sinkUrl: sink.url,
			pem,
			accounts,
			tenants,
			credentials,
			fresh: {
				partner: newPartner,
				certificate: async (tenant) => {
					const body = {
						name: "matrix",
						type: "partner",
						usage: "both",
						partner_id: partnerOf(tenant),
						certificate: pem,
					};
					return (await ok(call(base, "POST", "/v1/certificates", { ...inTenant(tenant), body }), "certificate")).json
						.data.id;
				},
				webhook: newWebhook,
				key: newKey,
				master: newMaster,
				message: freshMessage,
				cancelledMessage: async (tenant) => {
					const id = await freshMessage(tenant);
					await ok(call(base, "POST", `/v1/messages/${id}/cancel`, inTenant(tenant)), "cancel");
					return id;
				},
				session: login,
			},
			requests: () => requests,
			close: sink.close,
		};
	} catch (error) {
		await sink.close();
		throw error;
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

/**
 * Waits, bounded, until the server refuses the key as expired (the built server's clock is
 * the real one): polls rather than sleeping through a guessed window.
 */
async function untilExpired(base: string, token: string, expiresAt: string): Promise<void> {
	const deadline = Date.parse(expiresAt) + EXPIRY_WAIT_MS;
	await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now())));
	for (;;) {
		const me = await call(base, "GET", "/auth/me", { token });
		if (me.status === 401 && me.json?.error?.code === "expired_api_key") return;
		if (Date.now() > deadline) throw new Error(`the key did not expire: ${me.status} ${me.text}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** An RSA (AS2 needs RSA) self-signed certificate made by the OpenSSL CLI in `dir` (removed by the caller). */
function selfSignedPem(dir: string): string {
	const cert = join(dir, "cert.pem");
	execFileSync(
		"openssl",
		[
			"req",
			"-x509",
			"-newkey",
			"rsa:2048",
			"-nodes",
			"-keyout",
			join(dir, "key.pem"),
			"-out",
			cert,
			"-subj",
			"/CN=as2kit matrix partner",
			"-days",
			"3650",
		],
		{ stdio: ["ignore", "pipe", "pipe"] },
	);
	return readFileSync(cert, "utf8");
}

/** A loopback HTTP server that answers 200 to everything: the only place the server may call. */
async function startSink(): Promise<{ url: string; close(): Promise<void> }> {
	const server: Server = createServer((request, response) => {
		request.resume();
		request.on("end", () => response.end("ok"));
	});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((closed) => {
				server.closeAllConnections();
				server.close(() => closed());
			}),
	};
}
