import type { MiddlewareHandler } from "hono";
import { describeRoute, resolver, uniqueSymbol } from "hono-openapi";
import * as v from "valibot";
import { type AccessRule, authorize } from "../service/principal.ts";
import type { AppEnv } from "./context.ts";

/** The categorized error shape (interface spec, Errors 2). */
export const errorSchema = v.object({
	message: v.optional(v.string()),
	error: v.object({
		type: v.picklist([
			"authentication_error",
			"authorization_error",
			"validation_error",
			"resource_error",
			"rate_limit_error",
			"transmission_error",
			"certificate_error",
			"billing_error",
			"partner_error",
			"server_error",
		]),
		code: v.string(),
		message: v.optional(v.string()),
		details: v.optional(v.record(v.string(), v.unknown())),
	}),
});

/** A 422 carries both shapes at once (decisions.md, Errors). */
export const validationErrorSchema = v.object({
	message: v.string(),
	errors: v.record(v.string(), v.array(v.string())),
	error: errorSchema.entries.error,
});

const errorContent = (schema: v.GenericSchema = errorSchema) => ({ "application/json": { schema: resolver(schema) } });

const COMMON_ERRORS = {
	422: { description: "validation failed (query, headers or body)", content: errorContent(validationErrorSchema) },
	401: {
		description: "missing, unknown, revoked (invalid_api_key) or expired (expired_api_key) credential",
		content: errorContent(),
		headers: {
			"WWW-Authenticate": {
				description: 'Bearer realm="as2kit"; with error="invalid_token" when a credential was sent (RFC 6750 §3)',
				schema: { type: "string" },
			},
		},
	},
	403: {
		description: "the credential lacks the permission or the reach (insufficient_scope)",
		content: errorContent(),
	},
	503: {
		description:
			"the database cannot serve now (PostgreSQL restarting or failing over); try again later (SERVICE_UNAVAILABLE)",
		content: errorContent(),
	},
	429: {
		description: "rate or concurrency limit reached; wait Retry-After seconds",
		content: errorContent(),
		headers: {
			"Retry-After": { schema: { type: "integer" } },
			"X-RateLimit-Retry-After": { schema: { type: "integer" } },
		},
	},
} as const;

interface RouteDocFields {
	tags: string[];
	summary: string;
	description?: string;
	/** A JSON body; also accepted as a URL-encoded or multipart form. */
	body?: v.GenericSchema;
	/** The multipart form when it differs from `body` (a file part instead of inline content). */
	multipart?: v.GenericSchema;
	/** Status → description and schema of the success responses. */
	responses: Record<
		number,
		{
			description: string;
			schema?: v.GenericSchema;
			content?: Record<string, unknown>;
			/** Response headers: name → OpenAPI header object. */
			headers?: Record<string, unknown>;
		}
	>;
	/** Extra error responses: status → description. */
	errors?: Record<number, string>;
	/** Supports the Idempotency-Key header. */
	idempotent?: boolean;
}

/**
 * A route is public (no security requirement, no 401/403/429) or states who may call it
 * (README, "Who may do what"), so no authenticated route goes undocumented or unguarded.
 */
export type RouteDoc = RouteDocFields & ({ public: true; access?: undefined } | { public?: false; access: AccessRule });

/**
 * `describeRoute` with the shared error responses, security and media types filled in, and
 * the route's access rule both documented and enforced: it runs before anything else of the
 * route (query and body validation, an idempotent replay), so a caller without the grant
 * learns nothing but 403, and the document cannot disagree with the server.
 */
export function doc(spec: RouteDoc): MiddlewareHandler<AppEnv> {
	const responses: Record<string, unknown> = {};
	for (const [status, response] of Object.entries(spec.responses)) {
		responses[status] = {
			description: response.description,
			...(response.headers ? { headers: response.headers } : {}),
			...(response.content
				? { content: response.content }
				: response.schema
					? { content: { "application/json": { schema: resolver(response.schema) } } }
					: {}),
		};
	}
	if (!spec.public) Object.assign(responses, COMMON_ERRORS);
	if (spec.body) {
		responses[422] = { description: "validation failed", content: errorContent(validationErrorSchema) };
		responses[415] = {
			description:
				"body bytes in a media type other than JSON, URL-encoded or multipart form (a request without Content-Length and Transfer-Encoding has no body and is never 415)",
			content: errorContent(),
		};
		responses[413] = {
			description: "the body exceeds its size limit or holds more than 10,000 values (REQUEST_TOO_LARGE)",
			content: errorContent(),
		};
		responses[400] = { description: "malformed JSON (INVALID_JSON)", content: errorContent() };
	}
	for (const [status, description] of Object.entries(spec.errors ?? {})) {
		responses[status] = {
			description,
			content: errorContent(Number(status) === 422 ? validationErrorSchema : errorSchema),
		};
	}
	const parameters = spec.idempotent
		? [
				{
					in: "header" as const,
					name: "Idempotency-Key",
					required: false,
					description: "UUID v4; a repeat within 24 hours returns the original response",
					schema: { type: "string" as const, format: "uuid" },
				},
			]
		: [];
	const description = [spec.description, spec.access && accessText(spec.access)].filter(Boolean).join("\n\n");
	const described = describeRoute({
		tags: spec.tags,
		summary: spec.summary,
		...(description ? { description } : {}),
		...(spec.access ? { "x-access": spec.access } : {}),
		...(parameters.length ? { parameters } : {}),
		...(spec.public ? { security: [] } : {}),
		...(spec.body
			? {
					requestBody: {
						required: true,
						content: {
							"application/json": { schema: documented(spec.body, "text") },
							"application/x-www-form-urlencoded": { schema: documented(spec.body, "text") },
							"multipart/form-data": { schema: documented(spec.multipart ?? spec.body, "binary") },
						},
					},
				}
			: {}),
		responses: responses as never,
	});
	const rule = spec.access;
	if (!rule || (rule.permission === null && rule.reach === "tenant")) return described;
	// Not async: it only checks, then hands on `next()`'s own promise (context.ts, on promises).
	const guard: MiddlewareHandler<AppEnv> = (c, next) => {
		authorize(c.get("principal"), rule);
		return next();
	};
	return Object.assign(guard, { [uniqueSymbol]: described[uniqueSymbol as keyof typeof described] });
}

type JsonSchema = Record<string, unknown>;

const TEXT_FIELD: JsonSchema = { type: "string", description: "the text (PEM), or base64 of the bytes" };
const BINARY_PART: JsonSchema = {
	type: "string",
	format: "binary",
	contentMediaType: "application/octet-stream",
	description: "a file part, or the text (PEM) as a plain field",
};

/**
 * A body schema as the document shows it. A `File` has no JSON Schema (valibot's conversion
 * gives `{}`, so a file-or-text field read `anyOf [string, {}]`): in JSON and URL-encoded
 * bodies such a field is a string, in a multipart form a binary part.
 */
function documented(schema: v.GenericSchema, files: "text" | "binary") {
	const base = resolver(schema);
	return {
		...base,
		toOpenAPISchema: async (options?: Record<string, unknown>) => {
			const result = await base.toOpenAPISchema(options);
			replaceFileSchemas(result.schema as JsonSchema, files === "text" ? TEXT_FIELD : BINARY_PART);
			return result;
		},
	};
}

function replaceFileSchemas(schema: JsonSchema, file: JsonSchema): void {
	const properties = schema.properties as Record<string, JsonSchema> | undefined;
	for (const [name, property] of Object.entries(properties ?? {})) {
		const alternatives = property.anyOf as JsonSchema[] | undefined;
		const fileOrText = alternatives?.some(isFile) && alternatives.every((a) => isFile(a) || a.type === "string");
		if (isFile(property) || fileOrText) {
			const { anyOf: _, ...own } = property;
			properties![name] = { ...file, ...own };
		} else if (property.type === "object") {
			replaceFileSchemas(property, file);
		}
	}
}

/** What valibot's conversion leaves of `v.instance(File)`: no type, at most words. */
function isFile(schema: JsonSchema): boolean {
	return Object.keys(schema).every((key) => key === "description" || key === "title");
}

/** The access rule in words, for the operation's description. */
function accessText(rule: AccessRule): string {
	const permission = rule.permission ? `\`${rule.permission}\`` : "any valid credential";
	switch (rule.reach) {
		case "tenant":
			return rule.permission
				? `**Access:** ${permission}, in the tenant the credential works in (account credentials choose it with \`X-Tenant-ID\`).`
				: "**Access:** any valid credential.";
		case "account":
			return `**Access:** ${permission} and an account-scoped credential (a session or an account key, also one restricted to some tenants); tenant keys get 403.`;
		case "whole-account":
			return `**Access:** ${permission} and a credential for the whole account (an owner's or admin's session, or an account key not restricted to some tenants); others get 403.`;
	}
}

/** `{ message, data }`: the create/update envelope. */
export const messageEnvelope = (data: v.GenericSchema) => v.object({ message: v.string(), data });
/** `{ data }`: a single resource. */
export const dataEnvelope = (data: v.GenericSchema) => v.object({ data });
