import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store, BlobStore } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { createDeferredPgStore } from "../../../../test/pg/deferred-store.ts";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { createApp } from "../../src/http/app.ts";
import { HttpMetrics } from "../../src/http/metrics.ts";
import { ServiceMetrics } from "../../src/http/service-metrics.ts";
import type { ServiceConfig } from "../../src/service/config.ts";
import { createService, type Service } from "../../src/service/create-service.ts";
import type { Logger } from "../../src/service/deps.ts";
import { pooledIdentityKeyPair } from "./identity-keys.ts";
import { openKeyScope, poolRsaKeyGeneration } from "./rsa-key-pool.ts";

// Tenant identities from the run's pool of RSA keys rather than generated per tenant.
poolRsaKeyGeneration();

/** A clock the test moves by hand. */
export class TestClock {
	constructor(private instant = new Date("2026-03-01T09:00:00.000Z")) {}
	now = (): Date => new Date(this.instant);
	advance(seconds: number): void {
		this.instant = new Date(this.instant.getTime() + seconds * 1000);
	}
}

export interface TestApp {
	app: ReturnType<typeof createApp>;
	service: Service;
	store: As2Store;
	clock: TestClock;
	/** The blob store's directory (removed by `close`). */
	blobDir: string;
	/** A JSON request; `token` becomes the Bearer credential. */
	call(method: string, path: string, options?: CallOptions): Promise<TestResponse>;
	close(): Promise<void>;
}

export interface CallOptions {
	token?: string;
	body?: unknown;
	headers?: Record<string, string>;
}

export interface TestResponse {
	status: number;
	headers: Headers;
	// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
	json: any;
	text: string;
}

/**
 * The app on an in-memory SQLite store (or the database at `options.url`, e.g. to reopen it as
 * a restarted process would); scrypt at a test cost (2^10) to keep tests fast. With
 * `AS2KIT_TEST_STORE=pg` (the "rest-on-postgresql" project of vitest.config.ts) the store is a
 * fresh PostgreSQL database instead, so the same REST tests show the surface unchanged on it.
 */
export function createTestApp(
	config: Partial<ServiceConfig> = {},
	extraRoutes?: (app: ReturnType<typeof createApp>) => void,
	options: {
		url?: string;
		clock?: TestClock;
		logger?: Logger;
		metrics?: boolean;
		/** The blob store, given the fs blob store on the test's directory (a fake wraps it). */
		blobs?: (fs: BlobStore) => BlobStore;
	} = {},
): TestApp {
	const clock = options.clock ?? new TestClock();
	const closeKeyScope = openKeyScope();
	const blobDir = mkdtempSync(join(tmpdir(), "as2kit-blobs-"));
	const fsBlobs = createFsBlobStore(blobDir);
	const store =
		process.env.AS2KIT_TEST_STORE === "pg" && !options.url
			? createDeferredPgStore()
			: createSqliteStore({ url: options.url ?? ":memory:" });
	// With `metrics`, /metrics shows the engine's counters too, as on the Node server.
	const metrics = new HttpMetrics();
	const service = createService({
		store,
		blobs: options.blobs ? options.blobs(fsBlobs) : fsBlobs,
		now: clock.now,
		...(options.logger ? { logger: options.logger } : {}),
		...(options.metrics ? { telemetry: new ServiceMetrics(metrics.registry) } : {}),
		config: { masterKey: new Uint8Array(32).fill(7), passwordCostLog2: 10, ...config },
		identityKeyPair: pooledIdentityKeyPair,
	});
	const app = createApp({ service, metrics });
	// Test-only routes go in before the first request builds Hono's matcher.
	extraRoutes?.(app);
	return {
		app,
		service,
		// The engine's view: a change a test makes there is one this instance made (config-cache/).
		store: service.deps.store,
		clock,
		blobDir,
		async call(method, path, options = {}) {
			const headers: Record<string, string> = { ...options.headers };
			if (options.token) headers.authorization = `Bearer ${options.token}`;
			let body: string | undefined;
			if (options.body !== undefined) {
				body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
				headers["content-type"] ??= "application/json";
			}
			const response = await app.request(path, { method, headers, body });
			const text = await response.text();
			// Private keys are never serialized (DESIGN.md): every response of every test is checked.
			if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
				throw new Error(`${method} ${path} answered private key material`);
			let json: unknown = null;
			try {
				json = JSON.parse(text);
			} catch {}
			return { status: response.status, headers: response.headers, json, text };
		},
		async close() {
			await store.close();
			// Its open segment's descriptor (a test file starts many apps).
			fsBlobs.close();
			rmSync(blobDir, { recursive: true, force: true });
			closeKeyScope();
		},
	};
}

let counter = 0;

/** Registers a fresh user; returns its session token and ids. */
export async function register(t: TestApp, name = `Company ${++counter}`) {
	const email = `user${++counter}@example.com`;
	const response = await t.call("POST", "/auth/register", {
		body: { name, email, password: "correct horse battery", password_confirmation: "correct horse battery" },
	});
	if (response.status !== 201) throw new Error(`register failed: ${response.status} ${response.text}`);
	const me = await t.call("GET", "/v1/account", { token: response.json.token });
	return {
		token: response.json.token as string,
		userId: response.json.user.id as string,
		tenantId: response.json.tenant.id as string,
		accountId: me.json.data.id as string,
		email,
	};
}

/**
 * A fresh user with a live tenant key (every permission) and one partner, `prt_000001` (AS2 id
 * BUYER, at https://buyer.example/as2): what the message-submission tests start from.
 */
export async function liveTenantWithBuyer(t: TestApp, name: string) {
	const { owner, key } = await liveTenantKey(t, name);
	const partner = await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2" },
	});
	if (partner.status !== 201) throw new Error(`partner creation failed: ${partner.status} ${partner.text}`);
	return { owner, key };
}

/** A fresh user and a live key of its tenant with every permission. */
export async function liveTenantKey(t: TestApp, name: string) {
	const owner = await register(t, name);
	const key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	return { owner, key };
}

/** Creates an API key with a session token; returns the full key. */
export async function createKey(t: TestApp, token: string, body: Record<string, unknown>): Promise<string> {
	const response = await t.call("POST", "/v1/api-keys", { token, body: { name: "test key", ...body } });
	if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${response.text}`);
	return response.json.data.key;
}
