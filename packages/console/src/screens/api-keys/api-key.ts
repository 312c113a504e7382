/** An API key as `GET /v1/api-keys` lists it (interface spec, API key; never its secret). */
export interface ApiKey {
	id: string;
	name: string;
	key_prefix: string;
	key_last4: string;
	scope: "account" | "tenant";
	tenant_id: string | null;
	environment: "test" | "live";
	permissions: string[];
	allowed_tenant_ids: string[] | null;
	last_used_at: string | null;
	expires_at: string | null;
	created_at: string;
}

/** The create response: the one time `key` is there. */
export interface CreatedApiKey extends ApiKey {
	key: string;
}

/** Interface spec, Authentication item 8. */
export const TENANT_PERMISSIONS = [
	"messages:read",
	"messages:write",
	"partners:read",
	"partners:write",
	"certificates:read",
	"certificates:write",
	"webhooks:read",
	"webhooks:write",
];
export const ACCOUNT_PERMISSIONS = [
	"accounts:read",
	"accounts:write",
	"tenants:read",
	"tenants:write",
	"users:read",
	"users:write",
	"billing:read",
	"billing:write",
];
