import { Hono } from "hono";
import * as v from "valibot";
import type { PartnerTestResult } from "../../service/partners/partner-tests.ts";
import { formatInstant } from "../../service/views/instant.ts";
import { errorHintSchema } from "../../service/views/message-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { doc } from "../openapi.ts";

const TAG = ["Partners"];
const notFound = { 404: "no such partner for this tenant (PARTNER_NOT_FOUND)" };

const validationSchema = v.object({
	valid: v.boolean(),
	checks: v.array(
		v.object({
			name: v.string(),
			status: v.picklist(["pass", "fail", "warning"]),
			message: v.string(),
			issue: v.optional(
				v.picklist([
					"INVALID_AS2_ID",
					"UNREACHABLE_ENDPOINT",
					"EXPIRED_CERTIFICATE",
					"CERTIFICATE_REQUIRED",
					"UNSUPPORTED_ALGORITHM",
				]),
			),
		}),
	),
	hints: v.pipe(
		v.array(
			v.object({
				...errorHintSchema.entries,
				messages: v.pipe(v.number(), v.description("how many of the partner's latest 50 failed messages it explains")),
				last_message_id: v.pipe(v.string(), v.description("the latest failed message it explains")),
				last_failed_at: v.nullable(v.string()),
			}),
		),
		v.description(
			"The compatibility hints of the partner's latest failed messages (the `error_hint` of each, see GET /v1/messages/{message_id}), one per setting and value, most frequent first; empty when none.",
		),
	),
});

const testBodySchema = v.object({ test_type: v.picklist(["ping", "mdn", "full"]) });
const stepSchema = v.object({
	step: v.string(),
	status: v.picklist(["success", "warning", "failure"]),
	duration_ms: v.number(),
	details: v.record(v.string(), v.unknown()),
});
const testResultSchema = v.object({
	success: v.boolean(),
	message: v.string(),
	data: v.object({
		test_type: v.string(),
		partner: v.object({ id: v.string(), name: v.string(), as2_id: v.string(), url: v.string() }),
		results: v.object({
			connectivity: v.boolean(),
			response_time_ms: v.nullable(v.number()),
			ssl_validation: v.nullable(v.record(v.string(), v.unknown())),
			as2_protocol: v.optional(v.record(v.string(), v.unknown())),
			certificate_validation: v.optional(v.record(v.string(), v.unknown())),
			error: v.optional(v.string()),
			hint: v.nullable(errorHintSchema),
		}),
		timeline: v.array(stepSchema),
		duration_ms: v.number(),
		tested_at: v.string(),
	}),
});

/** `POST /v1/partners/{id}/validate` and `POST /v1/partners/{id}/test` (interface spec, Partners). */
export function partnerCheckRoutes() {
	return new Hono<AppEnv>()
		.post(
			"/:partner_id/validate",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary:
					"Check a partner's configuration: AS2 id, endpoint reachability, certificates, algorithms (partners:read)",
				description:
					"Answers the top-level object (no data envelope). Failed checks name the spec's issue: INVALID_AS2_ID, UNREACHABLE_ENDPOINT, EXPIRED_CERTIFICATE, UNSUPPORTED_ALGORITHM (and CERTIFICATE_REQUIRED). Reachability is checked only for a URL the target guard allows (see POST /v1/partners/{partner_id}/test).",
				responses: { 200: { description: "the checks", schema: validationSchema } },
				errors: notFound,
			}),
			async (c) => {
				const result = await c.get("service").partnerChecks.validate(c.get("principal"), c.req.param("partner_id"));
				return c.json({
					valid: result.valid,
					checks: result.checks,
					hints: result.hints.map(({ messages, lastMessageId, lastFailedAt, ...hint }) => ({
						...hint,
						messages,
						last_message_id: lastMessageId,
						last_failed_at: lastFailedAt ? formatInstant(lastFailedAt) : null,
					})),
				});
			},
		)
		.post(
			"/:partner_id/test",
			doc({
				tags: TAG,
				access: { permission: "partners:read", reach: "tenant" },
				summary: "Test the connection to a partner: DNS, TCP and TLS handshake, each timed (partners:read)",
				description:
					"Counts against the plan's partner tests per hour (429 when used up); the result becomes the partner's connection_status. The partner URL passes the same guard as every transmission: a host that is, or resolves to, a loopback, private or link-local address is not connected to unless AS2_ALLOW_PRIVATE_TARGETS=1 — the `dns` step fails and `results.error` starts with `refused:`.",
				body: testBodySchema,
				responses: { 200: { description: "the timeline and results", schema: testResultSchema } },
				errors: notFound,
			}),
			body(testBodySchema),
			async (c) => {
				const result = await c
					.get("service")
					.partnerChecks.test(c.get("principal"), c.req.param("partner_id"), c.get("body").test_type);
				return c.json(testResponse(result));
			},
		);
}

function testResponse(result: PartnerTestResult) {
	const p = result.partner.record;
	const { probe } = result;
	const mdn = result.timeline.find((s) => s.step === "mdn");
	return {
		success: result.success,
		message: result.success ? "Partner test passed" : `Partner test failed: ${result.error}`,
		data: {
			test_type: result.testType,
			partner: { id: p.id, name: p.name, as2_id: p.as2Id, url: p.url },
			results: {
				connectivity: probe
					? probe.reachable
					: result.timeline.some((s) => s.step === "transmit" && s.status === "success"),
				response_time_ms: probe?.responseTimeMs ?? result.durationMs,
				ssl_validation: probe?.tls
					? {
							verified: probe.tls.verified,
							protocol: probe.tls.protocol,
							error: probe.tls.error,
							certificate: probe.tls.certificate,
						}
					: null,
				...(mdn
					? {
							as2_protocol: { status: mdn.status, ...mdn.details },
							certificate_validation: { status: mdn.status, signature_valid: mdn.details.signature_valid ?? null },
						}
					: {}),
				...(result.error ? { error: result.error } : {}),
				hint: result.hint,
			},
			timeline: result.timeline.map((s) => ({
				step: s.step,
				status: s.status,
				duration_ms: s.durationMs,
				details: s.details,
			})),
			duration_ms: result.durationMs,
			tested_at: formatInstant(result.testedAt),
		},
	};
}
