import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../service/config.ts";
import { configFromEnv } from "./config-from-env.ts";

describe("configFromEnv", () => {
	it("defaults the retry schedules to the spec's (webhooks: 0 s, 15 s, 15 min, 1 h, 6 h, 24 h) and the job lease to 60 s", () => {
		const config = configFromEnv({});
		expect(config.AS2_WEBHOOK_RETRY_DELAYS).toEqual([0, 15, 900, 3600, 21600, 86400]);
		expect(config.AS2_SEND_RETRY_DELAYS).toEqual([0, 60, 300, 900, 3600]);
		expect(config.AS2_JOB_LEASE_SECONDS).toBe(60);
		expect(config.AS2_LINGER_SECONDS).toBe(30);
		expect(config.DATABASE_URL).toBe("./data/as2.sqlite");
		// The engine's own defaults agree, and a webhook attempt times out after 30 s (spec, Delivery).
		expect(DEFAULT_CONFIG.webhookRetryDelays).toEqual(config.AS2_WEBHOOK_RETRY_DELAYS);
		expect(DEFAULT_CONFIG.webhookTimeoutSeconds).toBe(30);
	});

	it("reads schedules as comma-separated seconds and names each bad variable", () => {
		expect(configFromEnv({ AS2_WEBHOOK_RETRY_DELAYS: "0,5,10" }).AS2_WEBHOOK_RETRY_DELAYS).toEqual([0, 5, 10]);
		const refusal = (() => {
			try {
				configFromEnv({ AS2_WEBHOOK_RETRY_DELAYS: "0, 5", PORT: "http" });
			} catch (error) {
				return String(error);
			}
			return "no error";
		})();
		expect(refusal).toMatch(/AS2_WEBHOOK_RETRY_DELAYS: must be comma-separated whole seconds/);
		expect(refusal).toMatch(/PORT: /);
	});

	it("keeps private targets closed unless AS2_ALLOW_PRIVATE_TARGETS=1, which AS2_ALLOW_HTTP=1 does not imply", () => {
		expect(configFromEnv({}).AS2_ALLOW_PRIVATE_TARGETS).toBe(false);
		expect(configFromEnv({ AS2_ALLOW_HTTP: "1" }).AS2_ALLOW_PRIVATE_TARGETS).toBe(false);
		expect(configFromEnv({ AS2_ALLOW_PRIVATE_TARGETS: "1" }).AS2_ALLOW_PRIVATE_TARGETS).toBe(true);
		expect(DEFAULT_CONFIG.allowPrivateTargets).toBe(false);
	});

	it("leaves the storage adapters' transaction check off unless AS2_CHECK_TRANSACTIONS=1", () => {
		expect(configFromEnv({}).AS2_CHECK_TRANSACTIONS).toBe(false);
		expect(configFromEnv({ AS2_CHECK_TRANSACTIONS: "1" }).AS2_CHECK_TRANSACTIONS).toBe(true);
		expect(() => configFromEnv({ AS2_CHECK_TRANSACTIONS: "yes" })).toThrow(/AS2_CHECK_TRANSACTIONS/);
	});

	it("allows no browser origin by default and reads AS2_CORS_ORIGINS as exact origins", () => {
		expect(configFromEnv({}).AS2_CORS_ORIGINS).toEqual([]);
		expect(
			configFromEnv({ AS2_CORS_ORIGINS: "https://console.example.com, http://127.0.0.1:5173" }).AS2_CORS_ORIGINS,
		).toEqual(["https://console.example.com", "http://127.0.0.1:5173"]);
		expect(() => configFromEnv({ AS2_CORS_ORIGINS: "*" })).toThrow(/AS2_CORS_ORIGINS: must be comma-separated origins/);
		expect(() => configFromEnv({ AS2_CORS_ORIGINS: "https://console.example.com/app" })).toThrow(/AS2_CORS_ORIGINS/);
	});

	it("keeps at most 10 PostgreSQL connections an instance unless DATABASE_POOL_SIZE says otherwise", () => {
		expect(configFromEnv({}).DATABASE_POOL_SIZE).toBe(10);
		expect(configFromEnv({ DATABASE_POOL_SIZE: "4" }).DATABASE_POOL_SIZE).toBe(4);
		expect(() => configFromEnv({ DATABASE_POOL_SIZE: "0" })).toThrow(/DATABASE_POOL_SIZE/);
		expect(() => configFromEnv({ DATABASE_POOL_SIZE: "ten" })).toThrow(/DATABASE_POOL_SIZE/);
	});

	it("bounds inbound work at 64 messages per instance unless AS2_RECEIVE_CONCURRENCY says otherwise", () => {
		expect(configFromEnv({}).AS2_RECEIVE_CONCURRENCY).toBe(64);
		expect(DEFAULT_CONFIG.receiveConcurrency).toBe(64);
		expect(configFromEnv({ AS2_RECEIVE_CONCURRENCY: "8" }).AS2_RECEIVE_CONCURRENCY).toBe(8);
		expect(() => configFromEnv({ AS2_RECEIVE_CONCURRENCY: "0" })).toThrow(/AS2_RECEIVE_CONCURRENCY/);
	});

	it("sizes the EPCIS threads by the cores unless AS2_EPCIS_THREADS says otherwise (0: the event loop)", () => {
		const config = configFromEnv({});
		expect(config.AS2_EPCIS_THREADS).toBeUndefined();
		expect(config.AS2_EPCIS_QUEUE).toBeUndefined();
		expect(config.AS2_EPCIS_BUDGET_SECONDS).toBe(10);
		expect(config.AS2_EPCIS_BUDGET_SECONDS_PER_MB).toBe(2);
		expect(config.AS2_EPCIS_THREAD_MEMORY_MB).toBe(1024);
		const set = configFromEnv({
			AS2_EPCIS_THREADS: "0",
			AS2_EPCIS_QUEUE: "3",
			AS2_EPCIS_BUDGET_SECONDS: "2.5",
			AS2_EPCIS_BUDGET_SECONDS_PER_MB: "0.5",
			AS2_EPCIS_THREAD_MEMORY_MB: "256",
		});
		expect(set).toMatchObject({
			AS2_EPCIS_THREADS: 0,
			AS2_EPCIS_QUEUE: 3,
			AS2_EPCIS_BUDGET_SECONDS: 2.5,
			AS2_EPCIS_BUDGET_SECONDS_PER_MB: 0.5,
			AS2_EPCIS_THREAD_MEMORY_MB: 256,
		});
		expect(() => configFromEnv({ AS2_EPCIS_THREADS: "two" })).toThrow(/AS2_EPCIS_THREADS/);
		expect(() => configFromEnv({ AS2_EPCIS_BUDGET_SECONDS: "0" })).toThrow(/AS2_EPCIS_BUDGET_SECONDS/);
		expect(() => configFromEnv({ AS2_EPCIS_THREAD_MEMORY_MB: "16" })).toThrow(/AS2_EPCIS_THREAD_MEMORY_MB/);
	});

	it("refuses an empty HOST, DATABASE_URL, BLOB_DIR or AS2_DATA_DIR, naming it, rather than read it as a place", () => {
		// `HOST=` in a compose file or an EnvironmentFile: Node would listen on every interface, an
		// empty DATABASE_URL failed with "ENOENT … open ''", empty directories meant the working one.
		for (const name of ["HOST", "DATABASE_URL", "BLOB_DIR", "AS2_DATA_DIR"]) {
			expect(() => configFromEnv({ [name]: "" }), name).toThrow(new RegExp(`${name}: .*empty`));
		}
		expect(configFromEnv({}).HOST).toBe("127.0.0.1");
	});

	it("refuses an AS2_PUBLIC_URL partners could not send async MDNs to: not http(s), with credentials, a query or a fragment", () => {
		for (const url of ["https://as2.example.com", "http://127.0.0.1:8080", "https://as2.example.com/edi/"])
			expect(configFromEnv({ AS2_PUBLIC_URL: url }).AS2_PUBLIC_URL).toBe(url);
		for (const url of [
			"as2.example.com",
			"ftp://as2.example.com",
			"https://u:p@as2.example.com",
			"https://x.example/?a=1",
			"https://x.example/#f",
		])
			expect(() => configFromEnv({ AS2_PUBLIC_URL: url }), url).toThrow(/AS2_PUBLIC_URL: /);
		expect(configFromEnv({}).AS2_PUBLIC_URL).toBeNull();
	});

	it("refuses a worker of no slots and a lease of no time: messages would stay queued, or every job be claimed again at once", () => {
		expect(configFromEnv({}).AS2_WORKER_CONCURRENCY).toBe(16);
		expect(configFromEnv({ AS2_WORKER_CONCURRENCY: "2" }).AS2_WORKER_CONCURRENCY).toBe(2);
		expect(() => configFromEnv({ AS2_WORKER_CONCURRENCY: "0" })).toThrow(/AS2_WORKER_CONCURRENCY/);
		expect(configFromEnv({ AS2_JOB_LEASE_SECONDS: "2" }).AS2_JOB_LEASE_SECONDS).toBe(2);
		expect(() => configFromEnv({ AS2_JOB_LEASE_SECONDS: "0" })).toThrow(/AS2_JOB_LEASE_SECONDS/);
	});

	it("takes DATABASE_URL as given: a postgres:// URL selects storage-pg (open-store.ts)", () => {
		const url = "postgres://as2kit:secret@db.internal:5432/as2kit";
		expect(configFromEnv({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
	});
});
