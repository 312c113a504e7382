import type { GeneratedIdentity } from "@as2kit/core";
import type { As2Store, TenantRecord } from "@as2kit/core/store";
import { as2IdFromName, firstFree, isValidAs2Id, slugFromName } from "./as2-identifier.ts";
import { generateTenantIdentity, insertIdentity } from "./certificates/identity.ts";
import type { ServiceDeps } from "./deps.ts";
import { recordEvent } from "./events.ts";
import { mayUseTenant, type Principal, requirePermission, requireWholeAccount } from "./principal.ts";
import { fieldError, isConflictOn, notFound } from "./validation-error.ts";
import { tenantView } from "./views/account-views.ts";

export interface TenantInput {
	name: string;
	as2Id?: string | undefined;
}

/**
 * Creates a tenant inside the caller's transaction and records `tenant.created`. Its AS2
 * identifier is unique across the deployment, because inbound routing is by AS2-To.
 */
export async function insertTenant(
	tx: As2Store,
	input: TenantInput & {
		accountId: string;
		environment: "test" | "live";
		identity: GeneratedIdentity;
		sealKey: Uint8Array;
	},
	now: Date,
): Promise<TenantRecord> {
	const as2Id =
		input.as2Id ?? (await firstFree(as2IdFromName(input.name), "_", async (c) => !!(await tx.tenants.findByAs2Id(c))));
	if (!isValidAs2Id(as2Id)) throw invalidAs2Id();
	if (await tx.tenants.findByAs2Id(as2Id)) throw duplicateAs2Id();
	const slug = await firstFree(
		slugFromName(input.name),
		"-",
		async (c) => !!(await tx.tenants.findBySlug(input.accountId, c)),
	);
	const tenant: TenantRecord = {
		id: await tx.ids.next("tnt_"),
		accountId: input.accountId,
		name: input.name,
		slug,
		as2Id,
		status: "active",
		createdAt: now,
		updatedAt: now,
	};
	await tx.tenants.create(tenant);
	const { updated_at: _, ...created } = tenantView(tenant);
	await recordEvent(
		tx,
		{
			kind: "tenant.created",
			accountId: tenant.accountId,
			tenantId: tenant.id,
			environment: input.environment,
			data: created,
		},
		now,
	);
	await insertIdentity(tx, tenant, input.identity, { sealKey: input.sealKey, environment: input.environment }, now);
	return tenant;
}

export function createTenantService({ store, now, sealKey, identityKeyPair }: ServiceDeps) {
	return {
		/** The format of a given as2_id, for the HTTP layer to report beside its schema's failures. */
		checkInput(input: { as2Id?: string | undefined }): void {
			if (input.as2Id !== undefined && !isValidAs2Id(input.as2Id)) throw invalidAs2Id();
		},

		async list(principal: Principal, page: { page: number; perPage: number }) {
			requirePermission(principal, "tenants:read");
			return store.tenants.list(
				principal.accountId,
				page,
				principal.allowedTenantIds ? { ids: principal.allowedTenantIds } : {},
			);
		},

		async get(principal: Principal, tenantId: string): Promise<TenantRecord> {
			requirePermission(principal, "tenants:read");
			return visibleTenant(store, principal, tenantId);
		},

		async create(principal: Principal, input: TenantInput): Promise<TenantRecord> {
			requirePermission(principal, "tenants:write");
			requireWholeAccount(principal, "creating a tenant");
			const identity = await generateTenantIdentity(input.name, now(), identityKeyPair);
			return withAs2IdConflict(() =>
				store.transaction((tx) =>
					insertTenant(
						tx,
						{ ...input, accountId: principal.accountId, environment: principal.environment, identity, sealKey },
						now(),
					),
				),
			);
		},

		async update(principal: Principal, tenantId: string, patch: Partial<TenantInput>): Promise<TenantRecord> {
			requirePermission(principal, "tenants:write");
			return withAs2IdConflict(() =>
				store.transaction(async (tx) => {
					const tenant = await visibleTenant(tx, principal, tenantId);
					if (patch.as2Id !== undefined && patch.as2Id !== tenant.as2Id) {
						if (!isValidAs2Id(patch.as2Id)) throw invalidAs2Id();
						if (await tx.tenants.findByAs2Id(patch.as2Id)) throw duplicateAs2Id();
					}
					const at = now();
					const updated = (await tx.tenants.update(principal.accountId, tenantId, { ...patch, updatedAt: at }))!;
					await recordEvent(
						tx,
						{
							kind: "tenant.updated",
							accountId: principal.accountId,
							tenantId,
							environment: principal.environment,
							data: tenantView(updated),
						},
						at,
					);
					return updated;
				}),
			);
		},
	};
}

async function visibleTenant(store: As2Store, principal: Principal, tenantId: string): Promise<TenantRecord> {
	const tenant = await store.tenants.get(principal.accountId, tenantId);
	if (!tenant || !mayUseTenant(principal, tenantId)) throw notFound("tenant");
	return tenant;
}

const invalidAs2Id = () =>
	fieldError(
		"as2_id",
		"may contain only letters, digits, hyphens and underscores (1-50 characters)",
		"INVALID_AS2_ID_FORMAT",
	);
const duplicateAs2Id = () => fieldError("as2_id", "is already used by another tenant", "DUPLICATE_AS2_ID");

/** Two racing requests: the store's unique index decides, and the loser gets the same 422. */
async function withAs2IdConflict<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		if (isConflictOn(error, "tenants.as2_id")) throw duplicateAs2Id();
		throw error;
	}
}
