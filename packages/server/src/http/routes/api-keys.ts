import { Hono } from "hono";
import * as v from "valibot";
import type { ApiKeyInput } from "../../service/api-keys.ts";
import { ALL_PERMISSIONS } from "../../service/permissions.ts";
import { apiKeySchema, apiKeyView, createdApiKeySchema, createdApiKeyView } from "../../service/views/api-key-views.ts";
import { formatInstant } from "../../service/views/instant.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { instant, text } from "../schemas/strings.ts";

const permissionList = v.pipe(
	v.array(v.picklist(ALL_PERMISSIONS)),
	v.minLength(1, "must list at least one permission"),
);

/** Both forms of the spec in one schema (decisions.md, Clarifications: API keys). */
const createSchema = v.object({
	name: text(1, 255),
	scope: v.optional(v.picklist(["account", "tenant"])),
	tenant_id: v.optional(v.string()),
	environment: v.optional(v.picklist(["test", "live"])),
	permissions: v.optional(permissionList),
	scopes: v.optional(permissionList),
	expires_at: v.optional(v.nullable(instant)),
	allowed_tenant_ids: v.optional(v.array(v.string())),
});

/** The wire body as the service's input: `scopes` (the spec's second form) is the permission list too. */
function toKeyInput(input: Partial<v.InferOutput<typeof createSchema>>): ApiKeyInput {
	return {
		name: input.name ?? "",
		scope: input.scope,
		tenantId: input.tenant_id,
		environment: input.environment,
		permissions: input.permissions ?? input.scopes,
		expiresAt: input.expires_at ?? undefined,
		allowedTenantIds: input.allowed_tenant_ids,
	};
}

export function apiKeyRoutes() {
	return new Hono<AppEnv>()
		.post(
			"/",
			doc({
				tags: ["API keys"],
				access: { permission: "*", reach: "tenant" },
				summary: "Create an API key (the full key is in this response only)",
				description: [
					"Either form: `scope` + `permissions`, with `tenant_id` required when `scope` is `tenant` (422 naming `tenant_id` without it), or `scopes` (+ `expires_at`), where an omitted `scope` makes a tenant key for the caller's current tenant. `environment` defaults to `test`; `allowed_tenant_ids` restricts an account key to some tenants.",
					"A key never reaches further than its creator (403 `insufficient_scope` otherwise, before the body is validated): a test key creates only test keys; only an owner's or admin's session or an account key not restricted to some tenants creates account keys; a tenant key creates keys of its own tenant, a restricted account key keys of its allowed tenants; a key with an expiry creates keys that expire no later (without `expires_at`, the new key inherits the creator's expiry). A tenant outside the caller's reach answers as a missing one (422).",
				].join(" "),
				body: createSchema,
				responses: { 201: { description: "created", schema: messageEnvelope(createdApiKeySchema) } },
			}),
			body(createSchema, {
				authorize: (c, raw) =>
					c
						.get("service")
						.apiKeys.authorizeCreate(c.get("principal"), typeof raw === "object" && raw !== null ? raw : {}),
				check: (c, input, failed) => c.get("service").apiKeys.checkInput(c.get("principal"), toKeyInput(input), failed),
			}),
			async (c) => {
				const { record, key } = await c.get("service").apiKeys.create(c.get("principal"), toKeyInput(c.get("body")));
				return c.json({ message: "API key created", data: createdApiKeyView(record, key) }, 201);
			},
		)
		.get(
			"/",
			doc({
				tags: ["API keys"],
				access: { permission: "*", reach: "tenant" },
				summary: "List API keys (without their secrets)",
				description:
					"The keys within the caller's reach, the ones it could have created: all for an owner's or admin's session; for an account key not restricted to some tenants, all of its environment (a test key sees test keys); for a tenant key or a restricted account key, the tenant keys of the tenants it reaches.",
				responses: { 200: { description: "a page of keys, newest first", schema: listEnvelope(apiKeySchema) } },
			}),
			query(v.object(pageQueryEntries)),
			async (c) => {
				const request = c.req.valid("query");
				const page = await c.get("service").apiKeys.list(c.get("principal"), toPageRequest(request));
				return c.json(listBody(page, request, apiKeyView));
			},
		)
		.delete(
			"/:key_id",
			doc({
				tags: ["API keys"],
				access: { permission: "*", reach: "tenant" },
				summary: "Revoke an API key; it is refused from then on",
				description:
					"Only a key within the caller's reach (see the list); any other answers 404, as a missing one. Refused from the next request on this instance; other instances on the same database refuse it within a second (each remembers an authenticated key for that long).",
				responses: {
					200: {
						description: "revoked",
						schema: messageEnvelope(v.object({ id: v.string(), revoked_at: v.string() })),
					},
				},
				errors: { 404: "no such key (NOT_FOUND)" },
			}),
			async (c) => {
				const key = await c.get("service").apiKeys.revoke(c.get("principal"), c.req.param("key_id"));
				return c.json({ message: "API key revoked", data: { id: key.id, revoked_at: formatInstant(key.revokedAt!) } });
			},
		);
}
