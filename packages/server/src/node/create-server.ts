import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { As2Store, BlobStore } from "@as2kit/core/store";
import { getRequestListener } from "@hono/node-server";
import type { Context } from "hono";
import { Hono } from "hono";
import { pino } from "pino";
import { createFsBlobStore } from "../blobs/fs-blob-store.ts";
import { createApp } from "../http/app.ts";
import { HttpMetrics } from "../http/metrics.ts";
import { ServiceMetrics } from "../http/service-metrics.ts";
import { createService, type Service } from "../service/create-service.ts";
import type { Logger } from "../service/deps.ts";
import { type Background, createBackground } from "../service/jobs/background.ts";
import type { EnvConfig } from "./config-from-env.ts";
import { answerEarly, closeLingeringConnections, lingerBounds } from "./early-answers.ts";
import { loadMasterKey } from "./master-key.ts";
import { openStore } from "./open-store.ts";
import { startEpcisEngine } from "./start-epcis-engine.ts";

export interface RunningServer {
	service: Service;
	/** The Hono app served on the listeners (for in-process calls in tests and embedders). */
	app: ReturnType<typeof createApp>;
	/** The engine's store: a change made there is seen at once by its cached reads (service/config-cache/). */
	store: As2Store;
	/** The API listener's address (its port when PORT=0). */
	address: AddressInfo;
	/** The separate AS2 listener's address when AS2_PORT is set. */
	as2Address: AddressInfo | null;
	/**
	 * Drains: stops accepting connections, finishes in-flight requests and jobs, closes
	 * storage. Resolves false when the deadline passed with work still running.
	 */
	close(): Promise<boolean>;
}

/**
 * The reference server on Node: storage by DATABASE_URL, blobs in BLOB_DIR, the REST API and
 * `/as2/receive` on PORT (and `/as2/*` alone on AS2_PORT when set), TLS when TLS_CERT_FILE
 * and TLS_KEY_FILE are given (TLS 1.2 minimum), and the job worker unless `--role api`.
 */
export async function startServer(config: EnvConfig, options: { logger?: Logger } = {}): Promise<RunningServer> {
	const logger = options.logger ?? (pino({ level: config.LOG_LEVEL }) as unknown as Logger);
	const masterKey = loadMasterKey(config.AS2_MASTER_KEY, config.AS2_DATA_DIR, logger);
	const blobStore = await openBlobStore(config);
	const store = await openStore(config.DATABASE_URL, {
		checkTransactions: config.AS2_CHECK_TRANSACTIONS,
		poolSize: config.DATABASE_POOL_SIZE,
	});
	const epcisEngine = startEpcisEngine(config, logger);
	// One registry for `/metrics`: the engine's counters beside the HTTP ones.
	const metrics = new HttpMetrics();
	const tlsOptions =
		config.TLS_CERT_FILE && config.TLS_KEY_FILE
			? {
					cert: readFileSync(config.TLS_CERT_FILE),
					key: readFileSync(config.TLS_KEY_FILE),
					minVersion: "TLSv1.2" as const,
				}
			: null;
	const servers: Server[] = [];
	const listen = (fetch: (request: Request, env: unknown) => Response | Promise<Response>, port: number) =>
		new Promise<AddressInfo>((resolve, reject) => {
			const server: Server = tlsOptions ? createHttpsServer(tlsOptions) : createHttpServer();
			// An HTTP/1.0 request may come without Host (RFC 1945; RFC 9112 §3.2 requires it of
			// HTTP/1.1 only, which Node refuses without one): a load balancer's health check does.
			// Its URL is then built on this name, as the request named none.
			const listener = getRequestListener(fetch, { hostname: "localhost" });
			answerEarly(server, listener, lingerBounds(config.AS2_LINGER_SECONDS));
			server.once("error", reject);
			server.listen(port, config.HOST, () => resolve(server.address() as AddressInfo));
			// Every wait has a timeout: a client that stops sending cannot hold a socket forever.
			server.requestTimeout = 15 * 60_000;
			server.headersTimeout = 60_000;
			servers.push(server);
		});

	// The listeners bind first: the receipt URL of async MDNs may be theirs (PORT=0 picks the
	// port). Until the app exists, which is a moment later, a request is told to come back.
	let serve: (request: Request, env: unknown) => Response | Promise<Response> = () =>
		new Response(null, { status: 503, headers: { "retry-after": "1" } });
	let background: Background | null = null;
	let address: AddressInfo;
	let as2Address: AddressInfo | null = null;
	let service: Service;
	let app: ReturnType<typeof createApp>;
	try {
		address = await listen((request, env) => serve(request, env), config.PORT);
		if (config.AS2_PORT !== undefined) {
			// The AS2 listener serves /as2/* only, so the API need not face partners' networks.
			const as2Only = new Hono()
				.all("/as2/*", (c) => serve(c.req.raw, c.env))
				.all("*", (c) =>
					c.json(
						{ message: "not found", error: { type: "resource_error", code: "NOT_FOUND", message: "not found" } },
						404,
					),
				);
			as2Address = await listen(as2Only.fetch, config.AS2_PORT);
		}
		const listenerUrl = config.AS2_PUBLIC_URL ? null : listenerBaseUrl(config, as2Address ?? address, !!tlsOptions);
		if (listenerUrl) {
			logger.warn(
				{ receiptUrl: `${listenerUrl}/as2/receive` },
				"AS2_PUBLIC_URL is not set: async MDNs are asked to come back to this listener's own address; partners outside this host need AS2_PUBLIC_URL",
			);
		}
		if (config.AS2_TEST_PASSWORD_COST_LOG2 !== undefined) {
			logger.warn(
				{ passwordCostLog2: config.AS2_TEST_PASSWORD_COST_LOG2 },
				"AS2_TEST_PASSWORD_COST_LOG2 is set: passwords are hashed at a test suite's cost, too cheap for production",
			);
		}
		service = createService({
			store,
			telemetry: new ServiceMetrics(metrics.registry),
			blobs: blobStore.blobs,
			logger,
			epcisEngine,
			config: {
				masterKey,
				defaultPlan: config.AS2_DEFAULT_PLAN,
				allowHttp: config.AS2_ALLOW_HTTP,
				allowPrivateTargets: config.AS2_ALLOW_PRIVATE_TARGETS,
				registrationCode: config.AS2_REGISTRATION_CODE,
				webhookRetryDelays: config.AS2_WEBHOOK_RETRY_DELAYS,
				sendRetryDelays: config.AS2_SEND_RETRY_DELAYS,
				mdnTimeoutSeconds: config.AS2_MDN_TIMEOUT_SECONDS,
				httpTimeoutSeconds: config.AS2_HTTP_TIMEOUT_SECONDS,
				wireCapture: config.AS2_WIRE_CAPTURE,
				publicUrl: config.AS2_PUBLIC_URL,
				listenerUrl,
				receiveBurst: config.AS2_RECEIVE_BURST,
				receivePerSecond: config.AS2_RECEIVE_PER_SECOND,
				receiveConcurrency: config.AS2_RECEIVE_CONCURRENCY,
				...(config.AS2_TEST_PASSWORD_COST_LOG2 !== undefined && {
					passwordCostLog2: config.AS2_TEST_PASSWORD_COST_LOG2,
				}),
			},
		});
		const clientIp = (c: Context) => {
			const forwarded = config.AS2_TRUST_PROXY ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
			const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
			return forwarded || incoming?.socket?.remoteAddress || "unknown";
		};
		app = createApp({
			service,
			logger,
			clientIp,
			metrics,
			metricsToken: config.AS2_METRICS_TOKEN,
			corsOrigins: config.AS2_CORS_ORIGINS,
		});
		serve = app.fetch;
		if (config.role !== "api") {
			background = createBackground(service, {
				leaseMs: config.AS2_JOB_LEASE_SECONDS * 1000,
				concurrency: config.AS2_WORKER_CONCURRENCY,
			});
			background.start();
		}
	} catch (error) {
		await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
		await epcisEngine.close();
		await store.close();
		blobStore.close();
		throw error;
	}
	logger.info(
		{
			port: address.port,
			host: config.HOST,
			as2Port: as2Address?.port,
			tls: !!config.TLS_CERT_FILE,
			role: config.role,
			blobs: config.BLOB_URL ? `s3://${config.BLOB_URL.bucket}/${config.BLOB_URL.prefix}` : config.BLOB_DIR,
		},
		"as2kit listening",
	);

	return {
		service,
		app,
		store: service.deps.store,
		address,
		as2Address,
		async close() {
			const deadline = new Promise<false>((resolve) =>
				setTimeout(() => resolve(false), config.AS2_SHUTDOWN_TIMEOUT_SECONDS * 1000).unref(),
			);
			const drain = (async () => {
				await Promise.all(
					servers.map(
						(server) =>
							new Promise<void>((resolve) => {
								server.close(() => resolve());
								server.closeIdleConnections();
								closeLingeringConnections(server);
							}),
					),
				);
				await background?.stop();
				return true as const;
			})();
			const drained = await Promise.race([drain, deadline]);
			if (!drained) for (const server of servers) server.closeAllConnections();
			await epcisEngine.close();
			await store.close();
			blobStore.close();
			return drained;
		},
	};
}

/**
 * `http(s)://host:port` of the listener partners reach (the AS2 one when AS2_PORT is set). A
 * wildcard bind (0.0.0.0, ::) is reachable on loopback from this host, which is all the
 * derived URL promises; partners elsewhere need AS2_PUBLIC_URL.
 */
function listenerBaseUrl(config: EnvConfig, address: AddressInfo, tls: boolean): string {
	const host = config.HOST === "0.0.0.0" ? "127.0.0.1" : config.HOST === "::" ? "::1" : config.HOST;
	return `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/** BLOB_URL's S3 store, or the BLOB_DIR directory; the AWS SDK is loaded only for the first. */
async function openBlobStore(config: EnvConfig): Promise<{ blobs: BlobStore; close(): void }> {
	if (!config.BLOB_URL) {
		const blobs = createFsBlobStore(config.BLOB_DIR);
		return { blobs, close: () => blobs.close() };
	}
	const { openS3BlobStore } = await import("../blobs/s3-open.ts");
	return openS3BlobStore(config.BLOB_URL);
}
