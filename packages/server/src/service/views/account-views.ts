import type { AccountRecord, MemberRole, TenantRecord, UserRecord } from "@as2kit/core/store";
import * as v from "valibot";
import { type Plan, planOf } from "../plans.ts";
import { formatInstant } from "./instant.ts";
import { idSchema, instantSchema } from "./schema-types.ts";

const planSchema = v.picklist(["free", "starter", "professional", "enterprise"]);

export const accountSchema = v.object({
	id: idSchema("acc_"),
	name: v.string(),
	slug: v.string(),
	plan: planSchema,
	status: v.picklist(["active", "suspended"]),
	created_at: instantSchema,
	updated_at: instantSchema,
});

/** The account as carried in events (interface spec: Tenant and account). */
export function accountView(account: AccountRecord): v.InferOutput<typeof accountSchema> {
	return {
		id: account.id,
		name: account.name,
		slug: account.slug,
		plan: account.plan,
		status: account.status,
		created_at: formatInstant(account.createdAt),
		updated_at: formatInstant(account.updatedAt),
	};
}

const limit = v.pipe(v.nullable(v.number()), v.description("null means unlimited"));
export const planLimitsSchema = v.object({
	requests_per_minute: limit,
	burst_limit: limit,
	concurrent_requests: limit,
	max_payload_bytes: v.number(),
	partners: limit,
	certificates: limit,
	partner_tests_per_hour: limit,
	monthly_live_messages: limit,
});

export function planLimitsView(plan: Plan): v.InferOutput<typeof planLimitsSchema> {
	return {
		requests_per_minute: plan.requestsPerMinute,
		burst_limit: plan.burst,
		concurrent_requests: plan.concurrent,
		max_payload_bytes: plan.maxPayloadBytes,
		partners: plan.partners,
		certificates: plan.certificates,
		partner_tests_per_hour: plan.partnerTestsPerHour,
		monthly_live_messages: plan.monthlyLiveMessages,
	};
}

export const accountDetailSchema = v.object({ ...accountSchema.entries, limits: planLimitsSchema });

/** `GET /v1/account`: the account with its plan's limits. */
export function accountDetailView(account: AccountRecord, plan: Plan = planOf(account.plan)) {
	return { ...accountView(account), limits: planLimitsView(plan) };
}

export const tenantSchema = v.object({
	id: idSchema("tnt_"),
	account_id: idSchema("acc_"),
	name: v.string(),
	slug: v.string(),
	as2_id: v.string(),
	status: v.picklist(["active", "suspended"]),
	created_at: instantSchema,
	updated_at: instantSchema,
});

/** The tenant as carried in events and returned by `/v1/tenants`. */
export function tenantView(tenant: TenantRecord): v.InferOutput<typeof tenantSchema> {
	return {
		id: tenant.id,
		account_id: tenant.accountId,
		name: tenant.name,
		slug: tenant.slug,
		as2_id: tenant.as2Id,
		status: tenant.status,
		created_at: formatInstant(tenant.createdAt),
		updated_at: formatInstant(tenant.updatedAt),
	};
}

export const memberTenantSchema = v.object({
	id: idSchema("tnt_"),
	name: v.string(),
	slug: v.string(),
	role: v.picklist(["owner", "admin", "member"]),
	pricing_tier: planSchema,
});

/** A tenant as listed for a user (`/auth/me`). */
export function memberTenantView(
	tenant: TenantRecord,
	role: MemberRole,
	account: AccountRecord,
): v.InferOutput<typeof memberTenantSchema> {
	return { id: tenant.id, name: tenant.name, slug: tenant.slug, role, pricing_tier: account.plan };
}

export const userSchema = v.object({ id: idSchema("usr_"), name: v.string(), email: v.string() });

export function userView(user: UserRecord): v.InferOutput<typeof userSchema> {
	return { id: user.id, name: user.name, email: user.email };
}

export const accountUsageSchema = v.object({
	account_id: idSchema("acc_"),
	plan: planSchema,
	period: v.object({ start: instantSchema, end: instantSchema }),
	live_messages: v.object({
		used: v.pipe(v.number(), v.description("live messages sent, and received signed, this month")),
		limit,
	}),
	live_bytes: v.pipe(v.number(), v.description("payload bytes of those messages")),
	unsigned_received: v.pipe(
		v.object({ messages: v.number(), bytes: v.number() }),
		v.description("unsigned messages received this month: not counted toward the allowance"),
	),
	storage: v.pipe(
		v.object({ payload_bytes: v.number(), wire_bytes: v.number(), total_bytes: v.number() }),
		v.description(
			"what the account keeps: message payloads and wire captures within retention, measured every 15 minutes",
		),
	),
});

/** `GET /v1/account/usage`. */
export function accountUsageView(usage: {
	account: AccountRecord;
	plan: Plan;
	period: { start: string; end: string };
	liveMessages: number;
	liveBytes: number;
	unsignedReceived: { messages: number; bytes: number };
	storage: { payloadBytes: number; wireBytes: number };
}): v.InferOutput<typeof accountUsageSchema> {
	return {
		account_id: usage.account.id,
		plan: usage.account.plan,
		period: usage.period,
		live_messages: { used: usage.liveMessages, limit: usage.plan.monthlyLiveMessages },
		live_bytes: usage.liveBytes,
		unsigned_received: usage.unsignedReceived,
		storage: {
			payload_bytes: usage.storage.payloadBytes,
			wire_bytes: usage.storage.wireBytes,
			total_bytes: usage.storage.payloadBytes + usage.storage.wireBytes,
		},
	};
}
