import type { Context } from "hono";
import { Hono } from "hono";
import type { Service } from "../service/create-service.ts";
import type { Logger } from "../service/deps.ts";
import { mountConsole } from "./console-assets.ts";
import type { AppEnv } from "./context.ts";
import { corsAllowList } from "./cors-allow-list.ts";
import { renderError, renderNotFound } from "./errors.ts";
import { HttpMetrics } from "./metrics.ts";
import { authenticate } from "./middleware/authenticate.ts";
import { negotiate } from "./middleware/negotiate.ts";
import { requestContext } from "./middleware/request-context.ts";
import { refuseNulInUrl } from "./request-text.ts";
import { accountRoutes } from "./routes/account.ts";
import { apiKeyRoutes } from "./routes/api-keys.ts";
import { as2Routes } from "./routes/as2.ts";
import { authRoutes } from "./routes/auth.ts";
import { certificateRoutes } from "./routes/certificates.ts";
import { compatibilityProfileRoutes } from "./routes/compatibility-profiles.ts";
import { epcisRoutes } from "./routes/epcis.ts";
import { masterPartnerRoutes } from "./routes/master-partners.ts";
import { messageActionRoutes } from "./routes/message-actions.ts";
import { messageAttemptRoutes } from "./routes/message-attempts.ts";
import { messageReadRoutes } from "./routes/message-reads.ts";
import { messageSubmitRoutes } from "./routes/message-submit.ts";
import { operationRoutes } from "./routes/operations.ts";
import { partnerCheckRoutes } from "./routes/partner-checks.ts";
import { partnerRoutes } from "./routes/partners.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import { webhookEndpointRoutes, webhookStatsRoutes } from "./routes/webhook-endpoints.ts";
import { registerStoreGauges } from "./service-metrics.ts";

export interface AppOptions {
	service: Service;
	logger?: Logger;
	/** The client's address, for per-address limits; the Node entry reads the socket. */
	clientIp?: (c: Context) => string;
	/** Bearer token that `/metrics` requires; open when null. */
	metricsToken?: string | null;
	/** The prefix the app is mounted under, for the OpenAPI `servers` entry. */
	basePath?: string;
	/**
	 * What `/metrics` serves: HTTP metrics, the store's gauges, and the engine's counters when
	 * the service was created with a `ServiceMetrics` on this registry (node/create-server.ts).
	 */
	metrics?: HttpMetrics;
	/**
	 * Origins (exact, e.g. `https://console.example.com`) whose browsers may call the API:
	 * a console deployed as static files elsewhere. None by default.
	 */
	corsOrigins?: readonly string[];
}

/**
 * The REST surface of as2kit as a Hono app: mount it in another Hono app
 * (`parent.route("/as2kit", createApp(...))`) or serve its `fetch` anywhere.
 *
 * @example
 * const app = createApp({ service: createService({ store, blobs, config: { masterKey } }) });
 * serve({ fetch: app.fetch, port: 8080 });
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
	const service = options.service;
	const logger = options.logger ?? service.deps.logger;
	const metrics = options.metrics ?? new HttpMetrics();
	registerStoreGauges(metrics.registry, service.deps);
	const clientIp = options.clientIp ?? defaultClientIp;
	const app = new Hono<AppEnv>();
	app.onError(renderError);
	app.notFound(renderNotFound);
	app.use("*", requestContext(service, logger, metrics));
	if (options.corsOrigins?.length) app.use("*", corsAllowList(options.corsOrigins));
	app.use("/auth/*", negotiate(), refuseNulInUrl());
	// Authentication and rate limits first: every /v1 response, a 406 or 415 too, carries the
	// X-RateLimit-* headers and counts (decisions.md, Rate limits), and a caller without a valid
	// key learns nothing but 401.
	app.use("/v1/*", authenticate({ rateLimit: true, clientIp }));
	app.use("/v1/*", negotiate({ anyAccept: (path) => PAYLOAD_DOWNLOAD.test(path) }), refuseNulInUrl());

	app.route("/auth", authRoutes({ clientIp }));
	app.route("/v1/api-keys", apiKeyRoutes());
	app.route("/v1/account", accountRoutes());
	app.route("/v1/tenants", tenantRoutes());
	app.route("/v1/partners", partnerRoutes());
	app.route("/v1/partners", partnerCheckRoutes());
	app.route("/v1/compatibility-profiles", compatibilityProfileRoutes());
	app.route("/v1/accounts", masterPartnerRoutes());
	app.route("/v1/certificates", certificateRoutes());
	app.route("/v1/messages", messageSubmitRoutes());
	app.route("/v1/messages", messageActionRoutes());
	app.route("/v1/messages", messageAttemptRoutes());
	app.route("/v1/messages", messageReadRoutes());
	app.route("/v1/epcis", epcisRoutes());
	app.route("/as2", as2Routes(clientIp));
	app.route("/v1/webhook-endpoints", webhookEndpointRoutes());
	app.route("/v1/webhook-endpoints-stats", webhookStatsRoutes());
	mountConsole(app);
	app.route(
		"/",
		operationRoutes(app, { metrics, metricsToken: options.metricsToken ?? null, basePath: options.basePath ?? "" }),
	);
	return app;
}

/** Payload downloads answer the payload's own media type, so any Accept header is theirs. */
const PAYLOAD_DOWNLOAD = /\/v1\/messages\/[^/]+\/(payload|attempts\/[^/]+\/(request|response|mdn))$/;

/** The socket's peer address under @hono/node-server; "unknown" elsewhere (tests, other runtimes). */
function defaultClientIp(c: Context): string {
	const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
	return incoming?.socket?.remoteAddress ?? "unknown";
}
