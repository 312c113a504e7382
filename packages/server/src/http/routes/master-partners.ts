import { Hono } from "hono";
import * as v from "valibot";
import { certificateSchema, certificateView } from "../../service/views/certificate-views.ts";
import { formatInstant } from "../../service/views/instant.ts";
import { partnerSchema, partnerView } from "../../service/views/partner-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { partnerCreateSchema, partnerPatchSchema, toPartnerInput } from "../schemas/partner-body.ts";
import { booleanParam, searchParam } from "../schemas/query-values.ts";

const TAG = ["Master partners"];
const notFound = { 404: "no such master partner in this account (PARTNER_NOT_FOUND)" };
const listQuery = v.object({ ...pageQueryEntries, search: v.optional(searchParam), active: v.optional(booleanParam) });
const masterDetailSchema = v.object({ ...partnerSchema.entries, certificates: v.array(certificateSchema) });

/**
 * `/v1/accounts/{account_id}/partners` (decisions.md, Tenants and accounts): master partners,
 * inherited by every tenant of the account. Account-scoped keys with partners:read/write.
 */
export function masterPartnerRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/:account_id/partners",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "account" },
				summary: "List the account's master partners",
				responses: { 200: { description: "a page of master partners", schema: listEnvelope(partnerSchema) } },
			}),
			query(listQuery),
			async (c) => {
				const q = c.req.valid("query");
				const page = await c
					.get("service")
					.masterPartners.list(
						c.get("principal"),
						c.req.param("account_id"),
						{ ...(q.search ? { search: q.search } : {}), ...(q.active !== undefined ? { active: q.active } : {}) },
						toPageRequest(q),
					);
				return c.json(
					listBody(page, q, (p) => ({ ...partnerView(p), type: "inherited" as const, master_partner_id: p.record.id })),
				);
			},
		)
		.post(
			"/:account_id/partners",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "whole-account" },
				summary: "Create a master partner, inherited by every tenant",
				body: partnerCreateSchema,
				responses: {
					201: {
						description: "created; emits partner.created (account-level)",
						schema: messageEnvelope(partnerSchema),
					},
				},
				errors: { 402: "the plan's partner limit is reached (PARTNER_LIMIT_EXCEEDED)" },
			}),
			body(partnerCreateSchema, { check: (c, input) => c.get("service").partners.checkInput(toPartnerInput(input)) }),
			async (c) => {
				const partner = await c.get("service").masterPartners.create(c.get("principal"), c.req.param("account_id"), {
					...toPartnerInput(c.get("body")),
					name: c.get("body").name,
					as2Id: c.get("body").as2_id,
					url: c.get("body").url,
				});
				return c.json(
					{
						message: "Master partner created",
						data: { ...partnerView(partner), master_partner_id: partner.record.id },
					},
					201,
				);
			},
		)
		.get(
			"/:account_id/partners/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "account" },
				summary: "One master partner with its certificates",
				responses: { 200: { description: "the master partner", schema: dataEnvelope(masterDetailSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const { partner, certificates } = await c
					.get("service")
					.masterPartners.get(c.get("principal"), c.req.param("account_id"), c.req.param("partner_id"));
				return c.json({
					data: {
						...partnerView(partner),
						master_partner_id: partner.record.id,
						certificates: certificates.map(certificateView),
					},
				});
			},
		)
		.patch(
			"/:account_id/partners/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "whole-account" },
				summary: "Change a master partner (every tenant without an override of a field sees the change)",
				body: partnerPatchSchema,
				responses: {
					200: {
						description: "updated; emits partner.updated (account-level)",
						schema: messageEnvelope(partnerSchema),
					},
				},
				errors: notFound,
			}),
			body(partnerPatchSchema, { check: (c, input) => c.get("service").partners.checkInput(toPartnerInput(input)) }),
			async (c) => {
				const partner = await c
					.get("service")
					.masterPartners.update(
						c.get("principal"),
						c.req.param("account_id"),
						c.req.param("partner_id"),
						toPartnerInput(c.get("body")),
					);
				return c.json({
					message: "Master partner updated",
					data: { ...partnerView(partner), master_partner_id: partner.record.id },
				});
			},
		)
		.delete(
			"/:account_id/partners/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "whole-account" },
				summary: "Delete a master partner for every tenant (its certificates become inactive, messages stay)",
				responses: {
					200: {
						description: "deleted; emits partner.deleted",
						schema: messageEnvelope(v.object({ id: v.string(), deleted_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const { id, deletedAt } = await c
					.get("service")
					.masterPartners.delete(c.get("principal"), c.req.param("account_id"), c.req.param("partner_id"));
				return c.json({ message: "Master partner deleted", data: { id, deleted_at: formatInstant(deletedAt) } });
			},
		);
}
