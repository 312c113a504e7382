import { Hono } from "hono";
import * as v from "valibot";
import { PLAN_NAMES, planOf } from "../../service/plans.ts";
import {
	accountDetailSchema,
	accountDetailView,
	accountUsageSchema,
	accountUsageView,
} from "../../service/views/account-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { text } from "../schemas/strings.ts";

const patchSchema = v.object({ name: v.optional(text(1, 255)), plan: v.optional(v.picklist(PLAN_NAMES)) });

export function accountRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/",
			doc({
				tags: ["Account"],
				access: { permission: "accounts:read", reach: "account" },
				summary: "The account, with its plan's limits (accounts:read)",
				responses: { 200: { description: "the account", schema: dataEnvelope(accountDetailSchema) } },
			}),
			async (c) => {
				const account = await c.get("service").accounts.get(c.get("principal"));
				return c.json({
					data: accountDetailView(account, planOf(account.plan, c.get("service").deps.config.enterpriseLimits)),
				});
			},
		)
		.get(
			"/usage",
			doc({
				tags: ["Account"],
				access: { permission: "accounts:read", reach: "account" },
				summary: "This month's usage against the plan, and the storage kept (accounts:read)",
				description:
					"Counted per account and calendar month (UTC): live messages sent and received signed, toward the plan's monthly allowance (`limit` null: unlimited), their bytes, and unsigned messages received (not counted toward it). `storage` is what the account keeps — message payloads, and wire captures within the plan's retention — measured every 15 minutes.",
				responses: { 200: { description: "the usage", schema: dataEnvelope(accountUsageSchema) } },
			}),
			async (c) => c.json({ data: accountUsageView(await c.get("service").accounts.usage(c.get("principal"))) }),
		)
		.patch(
			"/",
			doc({
				tags: ["Account"],
				access: { permission: "accounts:write", reach: "whole-account" },
				summary: "Rename the account or change its plan (accounts:write; plan also billing:write)",
				description:
					"A plan change is immediate (the reference server takes no payments) and emits billing.subscription_updated.",
				body: patchSchema,
				responses: { 200: { description: "updated", schema: messageEnvelope(accountDetailSchema) } },
			}),
			body(patchSchema),
			async (c) => {
				const account = await c.get("service").accounts.update(c.get("principal"), c.get("body"));
				return c.json({
					message: "Account updated",
					data: accountDetailView(account, planOf(account.plan, c.get("service").deps.config.enterpriseLimits)),
				});
			},
		);
}
