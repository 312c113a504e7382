import type { ApiKeyRecord } from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant, formatOptionalInstant } from "./instant.ts";
import { idSchema, instantSchema, nullableInstantSchema } from "./schema-types.ts";

export const apiKeySchema = v.object({
	id: idSchema("key_"),
	name: v.string(),
	key_prefix: v.picklist(["pk_test_", "pk_live_", "tk_test_", "tk_live_"]),
	key_last4: v.string(),
	scope: v.picklist(["account", "tenant"]),
	tenant_id: v.nullable(idSchema("tnt_")),
	environment: v.picklist(["test", "live"]),
	permissions: v.array(v.string()),
	scopes: v.pipe(v.array(v.string()), v.description("the same list as permissions (the spec's list-response name)")),
	allowed_tenant_ids: v.nullable(v.array(idSchema("tnt_"))),
	last_used_at: nullableInstantSchema,
	expires_at: nullableInstantSchema,
	created_at: instantSchema,
});

/** An API key without its secret (the keyed hash never leaves the store either). */
export function apiKeyView(key: ApiKeyRecord): v.InferOutput<typeof apiKeySchema> {
	return {
		id: key.id,
		name: key.name,
		key_prefix: key.keyPrefix as v.InferOutput<typeof apiKeySchema>["key_prefix"],
		key_last4: key.keyLast4,
		scope: key.scope,
		tenant_id: key.tenantId,
		environment: key.environment,
		permissions: key.permissions,
		scopes: key.permissions,
		allowed_tenant_ids: key.allowedTenantIds,
		last_used_at: formatOptionalInstant(key.lastUsedAt),
		expires_at: formatOptionalInstant(key.expiresAt),
		created_at: formatInstant(key.createdAt),
	};
}

export const createdApiKeySchema = v.object({
	...apiKeySchema.entries,
	key: v.pipe(v.string(), v.description("the full key: shown in this response only")),
});

/** The create response: the one time the full key is shown. */
export function createdApiKeyView(key: ApiKeyRecord, secret: string): v.InferOutput<typeof createdApiKeySchema> {
	return { ...apiKeyView(key), key: secret };
}
