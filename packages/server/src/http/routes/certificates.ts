import { Hono } from "hono";
import * as v from "valibot";
import { certificateSchema, certificateView } from "../../service/views/certificate-views.ts";
import { formatInstant } from "../../service/views/instant.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { idempotent } from "../middleware/idempotent.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { textProblem } from "../request-text.ts";
import { bytesOf, fileOrText } from "../schemas/file-field.ts";
import { booleanParam } from "../schemas/query-values.ts";
import { text } from "../schemas/strings.ts";

const TAG = ["Certificates"];
const notFound = { 404: "no such certificate for this tenant (NOT_FOUND)" };
const uploadSchema = v.object({
	name: text(1, 255),
	type: v.picklist(["identity", "partner"]),
	usage: v.picklist(["encryption", "signing", "both"]),
	partner_id: v.optional(v.string()),
	certificate: v.optional(fileOrText),
	private_key: v.optional(fileOrText),
	pkcs12: v.optional(fileOrText),
	password: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});
const listQuery = v.object({
	...pageQueryEntries,
	partner_id: v.optional(v.string()),
	type: v.optional(v.picklist(["identity", "partner"])),
	active: v.optional(booleanParam),
});
const activeSchema = messageEnvelope(certificateSchema);

/** The upload's parts as the service reads them: files and base64 text as bytes, PEM as text. */
async function uploadOf(b: Partial<v.InferOutput<typeof uploadSchema>>) {
	return {
		type: b.type,
		partnerId: b.partner_id,
		certificate: b.certificate === undefined ? undefined : await bytesOf(b.certificate, { base64: true }),
		privateKey: b.private_key === undefined ? undefined : await bytesOf(b.private_key, { base64: true }),
		pkcs12: b.pkcs12 === undefined ? undefined : toBytes(await bytesOf(b.pkcs12, { base64: true })),
		password: b.password,
	};
}

/** `/v1/certificates` (decisions.md, Identity certificate of a tenant). */
export function certificateRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/",
			doc({
				tags: TAG,
				access: { permission: "certificates:read", reach: "tenant" },
				summary:
					"List certificates: the tenant's identities, its partners' and its inherited partners' (certificates:read)",
				responses: {
					200: { description: "a page of certificates, newest first", schema: listEnvelope(certificateSchema) },
				},
			}),
			query(listQuery),
			async (c) => {
				const q = c.req.valid("query");
				const page = await c.get("service").certificates.list(
					c.get("principal"),
					{
						...(q.partner_id ? { partnerId: q.partner_id } : {}),
						...(q.type ? { type: q.type } : {}),
						...(q.active !== undefined ? { active: q.active } : {}),
					},
					toPageRequest(q),
				);
				return c.json(listBody(page, q, certificateView));
			},
		)
		.post(
			"/",
			doc({
				tags: TAG,
				access: { permission: "certificates:write", reach: "tenant" },
				summary: "Upload a certificate (certificates:write)",
				description:
					"`type: partner` with `partner_id` and `certificate` (PEM, DER or PKCS#7; base64 in JSON for binary); `type: identity` with `certificate` + `private_key` (PEM, optionally encrypted with `password`) or `pkcs12` + `password`. The private key is stored sealed and never returned. 422 INVALID_CERTIFICATE for anything unreadable. Emits certificate.uploaded.",
				body: uploadSchema,
				idempotent: true,
				responses: { 201: { description: "uploaded (active)", schema: messageEnvelope(certificateSchema) } },
				errors: {
					402: "the plan's certificate limit is reached (CERTIFICATE_LIMIT_EXCEEDED)",
					404: "no such partner (PARTNER_NOT_FOUND)",
				},
			}),
			idempotent(),
			body(uploadSchema, {
				authorize: (c, raw) => {
					const { type, partner_id } = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
					// An id no store can take (NUL, …) names no partner: validation refuses it.
					const partnerId =
						type === "partner" && typeof partner_id === "string" && textProblem(partner_id) === null
							? partner_id
							: undefined;
					return c.get("service").certificates.authorizeUpload(c.get("principal"), partnerId);
				},
				check: async (c, input, failed) => c.get("service").certificates.checkUpload(await uploadOf(input), failed),
			}),
			async (c) => {
				const upload = await uploadOf(c.get("body"));
				const certificate = await c.get("service").certificates.upload(c.get("principal"), {
					...upload,
					name: c.get("body").name,
					type: c.get("body").type,
					usage: c.get("body").usage,
				});
				return c.json({ message: "Certificate uploaded", data: certificateView(certificate) }, 201);
			},
		)
		.get(
			"/:cert_id",
			doc({
				tags: TAG,
				access: { permission: "certificates:read", reach: "tenant" },
				summary: "One certificate (certificates:read)",
				responses: { 200: { description: "the certificate", schema: dataEnvelope(certificateSchema) } },
				errors: notFound,
			}),
			async (c) =>
				c.json({
					data: certificateView(await c.get("service").certificates.get(c.get("principal"), c.req.param("cert_id"))),
				}),
		)
		.delete(
			"/:cert_id",
			doc({
				tags: TAG,
				access: { permission: "certificates:write", reach: "tenant" },
				summary: "Delete a certificate (certificates:write)",
				responses: {
					200: {
						description: "deleted",
						schema: messageEnvelope(v.object({ id: v.string(), deleted_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const { id, deletedAt } = await c
					.get("service")
					.certificates.delete(c.get("principal"), c.req.param("cert_id"));
				return c.json({ message: "Certificate deleted", data: { id, deleted_at: formatInstant(deletedAt) } });
			},
		)
		.post(
			"/:cert_id/activate",
			doc({
				tags: TAG,
				access: { permission: "certificates:write", reach: "tenant" },
				summary: "Activate a certificate; two of one usage may be active during a rollover (certificates:write)",
				responses: { 200: { description: "active; emits certificate.activated", schema: activeSchema } },
				errors: notFound,
			}),
			async (c) => {
				const certificate = await c.get("service").certificates.activate(c.get("principal"), c.req.param("cert_id"));
				return c.json({ message: "Certificate activated", data: certificateView(certificate) });
			},
		)
		.post(
			"/:cert_id/deactivate",
			doc({
				tags: TAG,
				access: { permission: "certificates:write", reach: "tenant" },
				summary: "Deactivate a certificate (certificates:write)",
				responses: { 200: { description: "inactive", schema: activeSchema } },
				errors: notFound,
			}),
			async (c) => {
				const certificate = await c.get("service").certificates.deactivate(c.get("principal"), c.req.param("cert_id"));
				return c.json({ message: "Certificate deactivated", data: certificateView(certificate) });
			},
		);
}

function toBytes(value: Uint8Array | string): Uint8Array {
	return typeof value === "string" ? new TextEncoder().encode(value) : value;
}
