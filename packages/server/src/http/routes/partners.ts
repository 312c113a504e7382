import { Hono } from "hono";
import * as v from "valibot";
import { STATS_PERIODS } from "../../service/partners/message-stats.ts";
import { certificateSchema, certificateView } from "../../service/views/certificate-views.ts";
import { formatInstant } from "../../service/views/instant.ts";
import { partnerStatsSchema, partnerStatsView } from "../../service/views/partner-stats-views.ts";
import {
	configurationSchema,
	configurationView,
	overrideView,
	partnerDetailSchema,
	partnerDetailView,
	partnerSchema,
	partnerView,
} from "../../service/views/partner-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { idempotent } from "../middleware/idempotent.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { bytesOf, fileOrText } from "../schemas/file-field.ts";
import { partnerCreateSchema, partnerPatchSchema, toPartnerInput } from "../schemas/partner-body.ts";
import { booleanParam, searchParam } from "../schemas/query-values.ts";
import { text } from "../schemas/strings.ts";

const TAG = ["Partners"];
const notFound = { 404: "no such partner for this tenant (PARTNER_NOT_FOUND)" };
const listQuery = v.object({
	...pageQueryEntries,
	search: v.optional(searchParam),
	active: v.optional(booleanParam),
	type: v.optional(v.picklist(["tenant", "inherited", "all"])),
});
const statsQuery = v.object({
	period: v.optional(
		v.pipe(
			v.picklist(Object.keys(STATS_PERIODS) as (keyof typeof STATS_PERIODS)[]),
			v.description("the last 7, 30 (default) or 90 UTC days, today included"),
		),
	),
});
const uploadSchema = v.object({
	name: text(1, 255),
	usage: v.picklist(["encryption", "signing", "both"]),
	certificate: fileOrText,
});
const partnerWithOverrides = v.object({
	...partnerSchema.entries,
	override_settings: v.optional(v.record(v.string(), v.unknown())),
});
const overridesSchema = v.object({
	partner_id: v.string(),
	master_partner_id: v.string(),
	has_overrides: v.boolean(),
	override_settings: v.record(v.string(), v.unknown()),
});

/** `/v1/partners` (interface spec, Partners; decisions.md for the responses it leaves open). */
export function partnerRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary: "List the tenant's partners and the inherited master partners (partners:read)",
				responses: { 200: { description: "a page of partners, oldest first", schema: listEnvelope(partnerSchema) } },
			}),
			query(listQuery),
			async (c) => {
				const q = c.req.valid("query");
				const page = await c.get("service").partners.list(
					c.get("principal"),
					{
						...(q.search ? { search: q.search } : {}),
						...(q.active !== undefined ? { active: q.active } : {}),
						type: q.type ?? "all",
					},
					toPageRequest(q),
				);
				return c.json(listBody(page, q, partnerView));
			},
		)
		.post(
			"/",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Create a tenant partner (partners:write)",
				description:
					"Errors: 422 DUPLICATE_AS2_ID, INVALID_AS2_ID_FORMAT, INVALID_ENDPOINT_URL (https only unless AS2_ALLOW_HTTP=1; no loopback, private or link-local host — `localhost`, `127.1`, `2130706433`, `[::ffff:127.0.0.1]`, `10.x`, `169.254.169.254`, … — unless AS2_ALLOW_PRIVATE_TARGETS=1, which AS2_ALLOW_HTTP does not imply; a host name is resolved and checked again at every connection), UNSUPPORTED_ALGORITHM; 402 PARTNER_LIMIT_EXCEEDED. Emits partner.created.",
				body: partnerCreateSchema,
				idempotent: true,
				responses: { 201: { description: "created (active)", schema: messageEnvelope(partnerSchema) } },
				errors: { 402: "the plan's partner limit is reached (PARTNER_LIMIT_EXCEEDED)" },
			}),
			idempotent(),
			body(partnerCreateSchema, { check: (c, input) => c.get("service").partners.checkInput(toPartnerInput(input)) }),
			async (c) => {
				const input = toPartnerInput(c.get("body"));
				const partner = await c.get("service").partners.create(c.get("principal"), {
					...input,
					name: c.get("body").name,
					as2Id: c.get("body").as2_id,
					url: c.get("body").url,
				});
				return c.json({ message: "Partner created", data: partnerView(partner) }, 201);
			},
		)
		.get(
			"/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary: "One partner with certificates, message statistics and connection status (partners:read)",
				responses: { 200: { description: "the partner", schema: dataEnvelope(partnerDetailSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const { partner, certificates, stats } = await c
					.get("service")
					.partners.get(c.get("principal"), c.req.param("partner_id"));
				return c.json({ data: partnerDetailView(partner, certificates, stats) });
			},
		)
		.patch(
			"/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Change a partner; on an inherited partner, store the tenant's overrides (partners:write)",
				description:
					"Only the supplied fields change; a new `url` follows the rules of POST /v1/partners (422 INVALID_ENDPOINT_URL). On an inherited partner an account-scoped key stores them as `override_settings`; tenant keys get 403. Emits partner.updated.",
				body: partnerPatchSchema,
				idempotent: true,
				responses: { 200: { description: "updated", schema: messageEnvelope(partnerWithOverrides) } },
				errors: notFound,
			}),
			idempotent(),
			body(partnerPatchSchema, { check: (c, input) => c.get("service").partners.checkInput(toPartnerInput(input)) }),
			async (c) => {
				const partner = await c
					.get("service")
					.partners.update(c.get("principal"), c.req.param("partner_id"), toPartnerInput(c.get("body")));
				return c.json({
					message: "Partner updated",
					data: {
						...partnerView(partner),
						...(partner.override ? { override_settings: overrideView(partner.override) } : {}),
					},
				});
			},
		)
		.delete(
			"/:partner_id",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Delete a tenant partner: its certificates become inactive, its messages stay (partners:write)",
				responses: {
					200: {
						description: "deleted; emits partner.deleted",
						schema: messageEnvelope(v.object({ id: v.string(), deleted_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const { id, deletedAt } = await c.get("service").partners.delete(c.get("principal"), c.req.param("partner_id"));
				return c.json({ message: "Partner deleted", data: { id, deleted_at: formatInstant(deletedAt) } });
			},
		)
		.post(
			"/:partner_id/activate",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Activate a partner (partners:write)",
				responses: {
					200: {
						description: "active",
						schema: messageEnvelope(v.object({ id: v.string(), active: v.literal(true), activated_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const partner = await c.get("service").partners.setActive(c.get("principal"), c.req.param("partner_id"), true);
				return c.json({
					message: "Partner activated",
					data: { id: partner.record.id, active: true, activated_at: formatInstant(partner.record.updatedAt) },
				});
			},
		)
		.post(
			"/:partner_id/deactivate",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Deactivate a partner: sending to it fails with PARTNER_INACTIVE (partners:write)",
				responses: {
					200: {
						description: "inactive",
						schema: messageEnvelope(v.object({ id: v.string(), active: v.literal(false), deactivated_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const partner = await c.get("service").partners.setActive(c.get("principal"), c.req.param("partner_id"), false);
				return c.json({
					message: "Partner deactivated",
					data: {
						id: partner.record.id,
						active: false,
						deactivated_at: formatInstant(partner.record.deactivatedAt ?? partner.record.updatedAt),
					},
				});
			},
		)
		.get(
			"/:partner_id/stats",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary:
					"The partner's message statistics: counts, success rates, processing times, daily activity (partners:read)",
				description:
					"Computed from the tenant's messages with this partner created in the period, test and live alike. Success rates count finished messages only (see the schema).",
				responses: { 200: { description: "the statistics", schema: dataEnvelope(partnerStatsSchema) } },
				errors: notFound,
			}),
			query(statsQuery),
			async (c) => {
				const { partner, stats } = await c
					.get("service")
					.partners.stats(c.get("principal"), c.req.param("partner_id"), c.req.valid("query").period);
				return c.json({ data: partnerStatsView(partner, stats) });
			},
		)
		.get(
			"/:partner_id/configuration",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary:
					"The partner's nested configuration: security, MDN, connection, certificates, statistics, HTTP, TLS, compatibility, inbound",
				description: "Every group is writable through PATCH /v1/partners/{partner_id} with the same names.",
				responses: { 200: { description: "the configuration", schema: dataEnvelope(configurationSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const { partner, certificates, stats } = await c
					.get("service")
					.partners.get(c.get("principal"), c.req.param("partner_id"));
				return c.json({ data: configurationView(partner, certificates, stats) });
			},
		)
		.get(
			"/:partner_id/overrides",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary: "The tenant's overrides of an inherited partner (account-scoped keys)",
				responses: { 200: { description: "the overrides", schema: dataEnvelope(overridesSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const partner = await c.get("service").partners.getOverrides(c.get("principal"), c.req.param("partner_id"));
				return c.json({
					data: {
						partner_id: partner.record.id,
						master_partner_id: partner.masterPartnerId!,
						has_overrides: partner.override !== null,
						override_settings: partner.override ? overrideView(partner.override) : {},
					},
				});
			},
		)
		.delete(
			"/:partner_id/overrides",
			doc({
				tags: TAG,
				access: { permission: "partners:write", reach: "tenant" },
				summary: "Drop the tenant's overrides: back to the master configuration (account-scoped keys)",
				responses: { 200: { description: "reset; emits partner.updated", schema: messageEnvelope(partnerSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const partner = await c.get("service").partners.deleteOverrides(c.get("principal"), c.req.param("partner_id"));
				return c.json({ message: "Overrides removed", data: partnerView(partner) });
			},
		)
		.get(
			"/:partner_id/certificates",
			doc({
				tags: TAG,
				access: { permission: "certificates:read", reach: "tenant" },
				summary: "The partner's certificates (certificates:read)",
				responses: { 200: { description: "newest first", schema: v.object({ data: v.array(certificateSchema) }) } },
				errors: notFound,
			}),
			async (c) => {
				const { certificates } = await c.get("service").partners.get(c.get("principal"), c.req.param("partner_id"));
				return c.json({ data: certificates.map(certificateView) });
			},
		)
		.post(
			"/:partner_id/certificates",
			doc({
				tags: TAG,
				access: { permission: "certificates:write", reach: "tenant" },
				summary: "Upload a partner certificate: PEM, DER or a PKCS#7 bundle (certificates:write)",
				description:
					"multipart/form-data with the file in `certificate`; JSON with PEM text (or base64 DER) works too. Emits certificate.uploaded.",
				body: uploadSchema,
				responses: { 201: { description: "uploaded (active)", schema: messageEnvelope(certificateSchema) } },
				errors: { ...notFound, 402: "the plan's certificate limit is reached (CERTIFICATE_LIMIT_EXCEEDED)" },
			}),
			body(uploadSchema, {
				authorize: (c) => c.get("service").certificates.authorizeUpload(c.get("principal"), c.req.param("partner_id")),
				check: async (c, input, failed) =>
					c.get("service").certificates.checkUpload(
						{
							type: "partner",
							partnerId: c.req.param("partner_id"),
							certificate: input.certificate && (await bytesOf(input.certificate, { base64: true })),
						},
						failed,
					),
			}),
			async (c) => {
				const certificate = await c.get("service").certificates.upload(c.get("principal"), {
					name: c.get("body").name,
					usage: c.get("body").usage,
					type: "partner",
					partnerId: c.req.param("partner_id"),
					certificate: await bytesOf(c.get("body").certificate, { base64: true }),
				});
				return c.json({ message: "Certificate uploaded", data: certificateView(certificate) }, 201);
			},
		);
}
