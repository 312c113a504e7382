import { As2Error } from "@as2kit/core";
import type { As2Store, PlanName } from "@as2kit/core/store";
import type { ServiceConfig } from "../config.ts";
import { recordEvent } from "../events.ts";
import { planOf } from "../plans.ts";
import { formatInstant } from "../views/instant.ts";

const THRESHOLDS = [75, 90, 100] as const;

export interface BillingPeriod {
	key: string;
	start: Date;
	end: Date;
	view: { start: string; end: string };
}

let lastPeriod: { month: number; period: BillingPeriod } | null = null;

/**
 * The calendar month of `at` in UTC: the usage period (decisions.md, Usage and billing events).
 * Every counted message asks for it: the last month's answer is kept (issue #20), frozen, since
 * callers share it.
 */
export function billingPeriod(at: Date): BillingPeriod {
	const month = at.getUTCFullYear() * 12 + at.getUTCMonth();
	if (lastPeriod?.month === month) return lastPeriod.period;
	const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
	const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) - 1);
	const period = Object.freeze({
		key: start.toISOString().slice(0, 7),
		start,
		end,
		view: Object.freeze({ start: formatInstant(start), end: formatInstant(end) }),
	});
	lastPeriod = { month, period };
	return period;
}

/**
 * Refuses a live send at once when the month's allowance is already used up, before its payload
 * is stored: 402 MESSAGE_LIMIT_EXCEEDED. A fast path only: two sends may both pass it for the
 * last free message, so the refusal that holds is countLiveSend's, in the message's transaction.
 */
export async function checkMessageAllowance(
	store: As2Store,
	account: { id: string; plan: PlanName },
	config: ServiceConfig,
	at: Date,
): Promise<void> {
	const limit = planOf(account.plan, config.enterpriseLimits).monthlyLiveMessages;
	if (limit === null) return;
	const current = await store.usage.get({
		accountId: account.id,
		period: billingPeriod(at).key,
		metric: "live_messages",
	});
	if (current < limit) return;
	throw await refuseOverAllowance(store, { account, limit, current, at });
}

/**
 * A live send the month's allowance has no room for, found as it was counted: thrown inside the
 * message's transaction so that it rolls back (no message, event or job stays), then turned
 * into the 402 by allowanceRefusal once the transaction has ended.
 */
class AllowanceSpent extends Error {
	constructor(readonly refusal: Refusal) {
		super("the month's live message allowance is used up");
	}
}

interface Refusal {
	account: { id: string; plan: PlanName };
	limit: number;
	/** The month's live messages before the refused one. */
	current: number;
	at: Date;
}

/**
 * After a live send failed: an allowance found spent as it was counted (countLiveSend) becomes
 * 402 MESSAGE_LIMIT_EXCEEDED; any other error is returned as it is.
 */
export async function allowanceRefusal(store: As2Store, error: unknown): Promise<unknown> {
	return error instanceof AllowanceSpent ? refuseOverAllowance(store, error.refusal) : error;
}

/** billing.limit_exceeded, in its own transaction since the request fails, and the 402 to answer. */
async function refuseOverAllowance(store: As2Store, refusal: Refusal): Promise<As2Error> {
	const { account, limit, current, at } = refusal;
	const period = billingPeriod(at);
	await store.transaction((tx) =>
		recordEvent(
			tx,
			{
				kind: "billing.limit_exceeded",
				accountId: account.id,
				tenantId: null,
				environment: "live",
				data: {
					account_id: account.id,
					resource_type: "live_messages",
					current_usage: current,
					plan_limit: limit,
					overage_amount: current + 1 - limit,
					billing_period: period.view,
				},
			},
			at,
		),
	);
	return new As2Error("MESSAGE_LIMIT_EXCEEDED", `the ${account.plan} plan allows ${limit} live messages a month`, {
		details: { current_usage: current, plan_limit: limit, plan: account.plan, billing_period: period.view },
	});
}

/**
 * Counts a received message (README, Usage), in the caller's transaction. Toward the monthly
 * allowance only when it was signed — unpack verified the signature with the partner's
 * certificate, so the partner sent it. An unsigned message (from a partner whose agreement
 * does not require signing) may come from anyone who knows two AS2 ids: a flood of forged
 * ones used to use up a Free account's month and lock it out of sending (issue #16). So it is
 * counted apart (`unsigned_received_messages`, `unsigned_received_bytes`), limited by the
 * plan's receive rate instead. The allowance never refuses inbound: that would lose a
 * partner's document; it refuses live sends only (countLiveSend).
 */
export async function countReceivedMessage(
	tx: As2Store,
	account: { id: string; plan: PlanName },
	config: ServiceConfig,
	message: { signed: boolean; bytes: number },
	at: Date,
): Promise<void> {
	if (message.signed) return countLiveMessage(tx, account, config, message.bytes, at);
	const period = billingPeriod(at).key;
	await tx.usage.incrementMany({
		accountId: account.id,
		period,
		by: { unsigned_received_messages: 1, unsigned_received_bytes: message.bytes },
	});
}

/**
 * Counts one live send, in its message's transaction, and refuses it (AllowanceSpent, so the
 * transaction rolls back) when the month's total with it goes past the plan's allowance: the
 * increment is atomic, so of two sends racing for the last free message exactly one gets it.
 */
export async function countLiveSend(
	tx: As2Store,
	account: { id: string; plan: PlanName },
	config: ServiceConfig,
	bytes: number,
	at: Date,
): Promise<void> {
	const total = await incrementLive(tx, account, bytes, at);
	const limit = planOf(account.plan, config.enterpriseLimits).monthlyLiveMessages;
	if (limit === null) return;
	if (total > limit) throw new AllowanceSpent({ account, limit, current: total - 1, at });
	await markThresholds(tx, account, limit, total, at);
}

/**
 * Counts one live message received signed and its bytes, in the caller's transaction, whatever
 * the allowance (countReceivedMessage says why).
 */
async function countLiveMessage(
	tx: As2Store,
	account: { id: string; plan: PlanName },
	config: ServiceConfig,
	bytes: number,
	at: Date,
): Promise<void> {
	const total = await incrementLive(tx, account, bytes, at);
	const limit = planOf(account.plan, config.enterpriseLimits).monthlyLiveMessages;
	if (limit !== null) await markThresholds(tx, account, limit, total, at);
}

/** Adds one live message and its bytes to the month's counters; the month's new total. */
async function incrementLive(tx: As2Store, account: { id: string }, bytes: number, at: Date): Promise<number> {
	const counted = await tx.usage.incrementMany(liveSendCounters(account, bytes, at));
	return counted.live_messages!;
}

/**
 * The counters a live message adds to (`UsageStore.incrementMany`): countLiveSend's, or a
 * submission step's where no allowance can refuse it (`MessageSteps.submit`).
 */
export function liveSendCounters(account: { id: string }, bytes: number, at: Date) {
	return { accountId: account.id, period: billingPeriod(at).key, by: { live_messages: 1, live_bytes: bytes } };
}

/** billing.usage_threshold the first time the month crosses 75, 90 and 100 %. */
async function markThresholds(
	tx: As2Store,
	account: { id: string },
	limit: number,
	current: number,
	at: Date,
): Promise<void> {
	const period = billingPeriod(at);
	for (const threshold of THRESHOLDS) {
		if (current * 100 < threshold * limit) continue;
		if (
			!(await tx.usage.markThreshold({ accountId: account.id, period: period.key, metric: "live_messages", threshold }))
		)
			continue;
		await recordEvent(
			tx,
			{
				kind: "billing.usage_threshold",
				accountId: account.id,
				tenantId: null,
				environment: "live",
				data: {
					account_id: account.id,
					threshold_percentage: threshold,
					current_usage: current,
					plan_limit: limit,
					usage_type: "live_messages",
					billing_period: period.view,
				},
			},
			at,
		);
	}
}
