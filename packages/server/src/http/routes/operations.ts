import { Scalar } from "@scalar/hono-api-reference";
import { type Handler, Hono } from "hono";
import { type GenerateSpecOptions, generateSpecs } from "hono-openapi";
import { bearerCredential, isSecret } from "../bearer.ts";
import type { AppEnv } from "../context.ts";
import { DOCS_SCRIPT, serveDocsScript } from "../docs-assets.ts";
import type { HttpMetrics } from "../metrics.ts";
import { addExamples } from "../openapi-examples.ts";
import { webhookDocs } from "../webhook-docs.ts";

export interface OperationsOptions {
	metrics: HttpMetrics;
	/** When set, `/metrics` requires `Authorization: Bearer <token>` (`AS2_METRICS_TOKEN`). */
	metricsToken: string | null;
	/** Where the app is mounted, for the OpenAPI `servers` entry. */
	basePath: string;
}

/** `/health`, `/metrics`, `/openapi.json` and `/docs`: no API key (decisions.md, Running). */
export function operationRoutes(app: Hono<AppEnv>, options: OperationsOptions) {
	return (
		new Hono<AppEnv>()
			.get("/health", (c) => c.json({ status: "ok" }))
			.get("/metrics", async (c) => {
				if (options.metricsToken && !isSecret(bearerCredential(c.req.header("authorization")), options.metricsToken)) {
					// RFC 9110 §11.6.1: a 401 names the scheme that would succeed.
					return c.text("unauthorized\n", 401, { "www-authenticate": 'Bearer realm="metrics"' });
				}
				return c.text(await options.metrics.registry.metrics(), 200, {
					"content-type": options.metrics.registry.contentType,
				});
			})
			.get(
				"/openapi.json",
				openApiDocument(app, {
					documentation: {
						openapi: "3.1.0",
						info: {
							title: "as2kit",
							version: "1.0.0",
							description:
								"AS2 (RFC 4130) messaging: partners, certificates, messages, webhooks and EPCIS, per tenant. Authenticate with `Authorization: Bearer <API key or session token>`; account keys choose a tenant with `X-Tenant-ID`.",
							license: { name: "MIT", identifier: "MIT" },
						},
						servers: [{ url: options.basePath || "/" }],
						webhooks: webhookDocs(),
						security: [{ bearer: [] }],
						components: {
							securitySchemes: {
								bearer: {
									type: "http",
									scheme: "bearer",
									description:
										"An API key (pk_/tk_ + test/live) or a session token (sess_) from /auth/register or /auth/login",
								},
							},
						},
					},
					exclude: ["/health", "/metrics", "/openapi.json", "/docs", "/docs/", `/${DOCS_SCRIPT}`],
					defaultValidationErrorResponse: false,
				}),
			)
			// Relative URLs: the page works wherever the app is mounted (`/as2kit/docs`).
			.get("/docs", Scalar({ url: "openapi.json", pageTitle: "as2kit API", cdn: DOCS_SCRIPT, withDefaultFonts: false }))
			.get(`/${DOCS_SCRIPT}`, serveDocsScript)
			// `/docs/` would resolve the relative URLs under `/docs/docs/`.
			.get("/docs/", (c) => c.redirect(c.req.path.replace(/\/+$/, "") + new URL(c.req.url).search, 301))
	);
}

/** The document of `app`, made once on the first request, with an example for every operation. */
function openApiDocument(app: Hono<AppEnv>, options: Partial<GenerateSpecOptions>): Handler<AppEnv> {
	let document: Promise<object> | null = null;
	return async (c) => {
		document ??= generateSpecs(app, options, c).then(addExamples);
		return c.json(await document);
	};
}
