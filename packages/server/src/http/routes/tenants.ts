import { Hono } from "hono";
import * as v from "valibot";
import { tenantSchema, tenantView } from "../../service/views/account-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { text } from "../schemas/strings.ts";

const as2Id = v.pipe(v.string(), v.trim());
const createSchema = v.object({ name: text(1, 255), as2_id: v.optional(as2Id) });
const patchSchema = v.object({ name: v.optional(text(1, 255)), as2_id: v.optional(as2Id) });
const notFound = { 404: "no such tenant in this account (NOT_FOUND)" };

/** `/v1/tenants`: account-scoped keys only (decisions.md, Tenants and accounts). */
export function tenantRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/",
			doc({
				tags: ["Tenants"],
				access: { permission: "tenants:read", reach: "account" },
				summary: "List the account's tenants (tenants:read)",
				responses: { 200: { description: "a page of tenants, oldest first", schema: listEnvelope(tenantSchema) } },
			}),
			query(v.object(pageQueryEntries)),
			async (c) => {
				const request = c.req.valid("query");
				const page = await c.get("service").tenants.list(c.get("principal"), toPageRequest(request));
				return c.json(listBody(page, request, tenantView));
			},
		)
		.post(
			"/",
			doc({
				tags: ["Tenants"],
				access: { permission: "tenants:write", reach: "whole-account" },
				summary: "Create a tenant (tenants:write)",
				description:
					"`as2_id` is the tenant's AS2 identity towards partners, unique across the deployment; by default derived from the name.",
				body: createSchema,
				responses: { 201: { description: "created; emits tenant.created", schema: messageEnvelope(tenantSchema) } },
			}),
			body(createSchema, { check: (c, input) => c.get("service").tenants.checkInput({ as2Id: input.as2_id }) }),
			async (c) => {
				const tenant = await c.get("service").tenants.create(c.get("principal"), {
					name: c.get("body").name,
					as2Id: c.get("body").as2_id,
				});
				return c.json({ message: "Tenant created", data: tenantView(tenant) }, 201);
			},
		)
		.get(
			"/:tenant_id",
			doc({
				tags: ["Tenants"],
				access: { permission: "tenants:read", reach: "account" },
				summary: "One tenant (tenants:read)",
				responses: { 200: { description: "the tenant", schema: dataEnvelope(tenantSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const tenant = await c.get("service").tenants.get(c.get("principal"), c.req.param("tenant_id"));
				return c.json({ data: tenantView(tenant) });
			},
		)
		.patch(
			"/:tenant_id",
			doc({
				tags: ["Tenants"],
				access: { permission: "tenants:write", reach: "account" },
				summary: "Rename a tenant or change its AS2 identifier (tenants:write)",
				body: patchSchema,
				responses: { 200: { description: "updated; emits tenant.updated", schema: messageEnvelope(tenantSchema) } },
				errors: notFound,
			}),
			body(patchSchema, { check: (c, input) => c.get("service").tenants.checkInput({ as2Id: input.as2_id }) }),
			async (c) => {
				const tenant = await c.get("service").tenants.update(c.get("principal"), c.req.param("tenant_id"), {
					name: c.get("body").name,
					as2Id: c.get("body").as2_id,
				});
				return c.json({ message: "Tenant updated", data: tenantView(tenant) });
			},
		);
}
