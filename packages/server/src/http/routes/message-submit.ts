import { As2Error } from "@as2kit/core";
import { Hono } from "hono";
import * as v from "valibot";
import { checkContentType, defaultEncoding, SUPPORTED_CONTENT_TYPES } from "../../service/messages/content-types.ts";
import { checkMessageHeaders, type MessageHeaderInput } from "../../service/messages/custom-headers.ts";
import { newPayloadKey, type SubmitInput } from "../../service/messages/submit.ts";
import { planOf } from "../../service/plans.ts";
import { FieldChecks, fieldError } from "../../service/validation-error.ts";
import { messageSchema, queuedView } from "../../service/views/message-views.ts";
import { declaredLength, mediaType, readLimitedBody } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { toFieldErrors } from "../field-errors.ts";
import { MAX_FORM_OVERHEAD_BYTES } from "../form-parts.ts";
import { readMessageForm } from "../message-form.ts";
import { idempotent } from "../middleware/idempotent.ts";
import { doc, messageEnvelope } from "../openapi.ts";
import { refuseBadText } from "../request-text.ts";
import { instant, text } from "../schemas/strings.ts";

/** JSON bodies carry the payload inline; beyond this, multipart streams it (413 REQUEST_TOO_LARGE). */
export const MAX_JSON_MESSAGE_BYTES = 16 * 1024 * 1024;

const options = {
	subject: v.optional(
		v.pipe(
			text(1, 255),
			v.description(
				"any text but control characters; sent as it is when printable US-ASCII, else as RFC 2047 encoded-words (UTF-8)",
			),
		),
	),
	headers: v.optional(
		v.pipe(
			v.record(v.string(), v.string()),
			v.description(
				"custom AS2 headers, sent as given: names are RFC 9110 tokens, values printable US-ASCII (no line breaks, control or non-ASCII characters), at most 50; the engine's own (AS2-*, Message-ID, Content-*, Subject, Disposition-Notification-*, Receipt-Delivery-Option, Date, MIME-Version, EDIINT-Features, HTTP framing) cannot be set. Otherwise 422",
			),
		),
	),
	priority: v.optional(v.picklist(["low", "normal", "high"])),
	compress: v.optional(v.boolean()),
	encrypt: v.optional(v.boolean()),
	sign: v.optional(v.boolean()),
	mdn_mode: v.optional(v.picklist(["sync", "async", "none"])),
	scheduled_at: v.optional(instant),
};

const jsonSchema = v.object({
	partner_id: v.pipe(v.string(), v.minLength(1, "is required")),
	content_type: v.pipe(v.string(), v.minLength(1, "is required")),
	payload: v.object({
		content: v.pipe(v.string(), v.minLength(1, "must not be empty")),
		filename: v.optional(text(1, 255)),
		encoding: v.optional(v.picklist(["utf-8", "base64"])),
	}),
	...options,
});

const formSchema = v.object({
	partner_id: v.pipe(v.string(), v.minLength(1, "is required")),
	content_type: v.pipe(v.string(), v.minLength(1, "is required")),
	filename: v.optional(text(1, 255)),
	...options,
	// In a form, custom headers arrive as a JSON object text, or as headers[Name]=value fields.
	headers: v.optional(
		v.union([v.record(v.string(), v.string()), v.pipe(v.string(), v.parseJson(), v.record(v.string(), v.string()))]),
	),
});

// Base64 with line breaks and blanks anywhere, padding at the end. One blank-taking class only:
// a second one after the padding made a long run of blanks backtrack quadratically.
const BASE64 = /^[A-Za-z0-9+/\r\n\t ]*(=[\r\n\t ]*){0,2}$/;

/**
 * The payload may hold any character; the subject, file names and custom headers are judged
 * by the service, with its own words (custom-headers.ts). No other field may hold NUL or a
 * lone surrogate (request-text.ts).
 */
const CHECKED_ELSEWHERE = new Set(["payload.content", "subject", "filename", "payload.filename", "headers"]);

/**
 * The body checked by `schema`; when it fails, the service's own checks of the subject, file
 * name and custom headers run too on those of them the schema took, so that one 422 names
 * every field at fault (issue #16, defect 9).
 */
function parse<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
	refuseBadText(value, CHECKED_ELSEWHERE);
	const result = v.safeParse(schema, value);
	if (result.success) return result.output;
	const fieldErrors = toFieldErrors(result.issues);
	const fields = new FieldChecks();
	fields.add(new As2Error("VALIDATION_FAILED", describe(fieldErrors), { fieldErrors }));
	fields.check(() => checkMessageHeaders(headerFieldsOf(value, fieldErrors)));
	fields.throwIfAny();
	throw new Error("unreachable: a failed schema check adds a field error");
}

const describe = (fieldErrors: Record<string, string[]>) =>
	Object.entries(fieldErrors)
		.map(([field, messages]) => `${field} ${messages[0]}`)
		.join("; ");

/** The subject, file name and custom headers of a raw body, where they have the types the schema wants. */
function headerFieldsOf(value: unknown, failed: Record<string, string[]>): MessageHeaderInput {
	const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	const payload = (typeof raw.payload === "object" && raw.payload !== null ? raw.payload : {}) as Record<
		string,
		unknown
	>;
	const text = (field: string, candidate: unknown) =>
		typeof candidate === "string" && !(field in failed) ? candidate : undefined;
	const headers =
		typeof raw.headers === "object" && raw.headers !== null && !("headers" in failed)
			? (raw.headers as Record<string, string>)
			: undefined;
	return {
		subject: text("subject", raw.subject),
		filename: text("filename", raw.filename) ?? text("payload.filename", payload.filename),
		headers,
	};
}

/** `POST /v1/messages` (interface spec, Messages). */
export function messageSubmitRoutes() {
	return new Hono<AppEnv>().post(
		"/",
		doc({
			tags: ["Messages"],
			access: { permission: "messages:write", reach: "tenant" },
			summary: "Send a message to a partner (messages:write)",
			description: `JSON with the payload inline (\`payload.content\`, UTF-8 or base64 per \`payload.encoding\`; the default follows the content type: text, EDI, XML, JSON, CSV as utf-8; PDF, ZIP, images as base64; up to 16 MB), or multipart/form-data with the file in the part \`file\` (its \`filename\` read as UTF-8, or RFC 2231 \`filename*\`), streamed and never held in memory (up to the plan's size), and the fields \`partner_id\` and \`content_type\` (both required, as in JSON), \`subject\`, \`filename\`, \`priority\`, \`headers\`, …. \`content_type\` is one of ${SUPPORTED_CONTENT_TYPES.join(", ")} (parameters such as \`; charset=utf-8\` allowed); another is 400 INVALID_CONTENT_TYPE. An empty payload (empty \`payload.content\`, a 0-byte file) is 422, and so is a multipart body that is not a well-formed form (wrong or unterminated boundary, more than 100 parts, oversized part headers). sign, encrypt, compress and mdn_mode override the partner's settings for this message. Errors: 404 PARTNER_NOT_FOUND, 400 PARTNER_INACTIVE, 400 INVALID_CONTENT_TYPE, 400 SIGNING_FAILED / ENCRYPTION_FAILED / CERTIFICATE_EXPIRED, 413 PAYLOAD_TOO_LARGE (as soon as the limit is crossed, or before the upload when its Content-Length exceeds the plan's size by more than the form's other parts may take, about 8 MB), 402 MESSAGE_LIMIT_EXCEEDED. Emits message.queued.`,
			body: jsonSchema,
			multipart: v.object({
				...formSchema.entries,
				file: v.pipe(
					v.instance(File),
					v.description("the payload, streamed (its part's filename is the message's, unless `filename` is given)"),
				),
			}),
			idempotent: true,
			responses: { 202: { description: "queued", schema: messageEnvelope(messageSchema) } },
			errors: {
				400: "partner inactive, unsupported content type (INVALID_CONTENT_TYPE), or a certificate problem",
				402: "the monthly live-message allowance is used up (MESSAGE_LIMIT_EXCEEDED)",
				404: "no such partner (PARTNER_NOT_FOUND)",
				413: "the payload exceeds the plan's size (PAYLOAD_TOO_LARGE)",
				503: "the payload store (S3 with BLOB_URL) refused or did not answer, or the database cannot serve now (PostgreSQL restarting or failing over); try again (SERVICE_UNAVAILABLE)",
			},
		}),
		idempotent(),
		async (c) => {
			const service = c.get("service");
			const principal = c.get("principal");
			let input: SubmitInput;
			if (mediaType(c.req.header("content-type")) === "multipart/form-data") {
				const max = planOf(principal.plan, service.deps.config.enterpriseLimits).maxPayloadBytes;
				// Before a byte of the body is read, so that a client sending Expect: 100-continue
				// gets the 413 instead of 100 Continue and never sends the file (early-answers.ts).
				if ((declaredLength(c) ?? 0) > max + MAX_FORM_OVERHEAD_BYTES) {
					throw new As2Error("PAYLOAD_TOO_LARGE", `the payload exceeds the plan's ${max} bytes`, {
						details: { max_bytes: max },
					});
				}
				const form = await readMessageForm(c.req.raw, {
					blobs: service.deps.blobs,
					maxBytes: max,
					newKey: () => newPayloadKey(service.deps.now()),
				});
				try {
					const checks = new FieldChecks();
					if (!form.file) checks.add(fieldError("file", "is required"));
					else if (form.file.blob.bytes === 0) checks.add(fieldError("file", "must not be empty"));
					// The part's own file name is checked as the `filename` field would be (1-255 characters).
					const fields = checks.check(() =>
						parse(formSchema, { filename: form.file?.filename ?? undefined, ...form.fields }),
					);
					checks.throwIfAny();
					if (!form.file || !fields) throw new Error("unreachable: checked above");
					input = submitInput(fields, {
						partnerId: fields.partner_id,
						contentType: checkContentType(fields.content_type),
						filename: fields.filename,
						payload: { blob: form.file.blob },
						headers: fields.headers as Record<string, string> | undefined,
					});
				} catch (error) {
					if (form.file) await service.deps.blobs.delete(form.file.blob.key).catch(() => {});
					throw error;
				}
			} else {
				const body = parse(jsonSchema, await readLimitedBody(c, MAX_JSON_MESSAGE_BYTES, tooLargeForJson));
				const encoding = body.payload.encoding ?? defaultEncoding(checkContentType(body.content_type));
				if (encoding === "base64" && !BASE64.test(body.payload.content)) {
					throw fieldError("payload.content", "is not valid base64");
				}
				const bytes =
					encoding === "base64"
						? Buffer.from(body.payload.content, "base64")
						: Buffer.from(body.payload.content, "utf8");
				// Base64 of nothing (white space, padding alone) is as empty as "".
				if (bytes.byteLength === 0) throw fieldError("payload.content", "must not be empty");
				input = submitInput(body, {
					partnerId: body.partner_id,
					contentType: body.content_type,
					filename: body.payload.filename,
					payload: { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
					headers: body.headers,
				});
			}
			const message = await service.messages.submit(principal, input);
			return c.json({ message: "Message queued", data: queuedView(message) }, 202);
		},
	);
}

/**
 * The submission: the payload's fields, then the body's options, in one literal. Written as
 * `{ ...options(body), partnerId, … }`, a literal that starts with a spread and goes on with
 * properties leaves V8's clone fast path on Node 20: some 0.6–0.9 us a request
 * (bench/spread-literals.mjs, "The service per message (stop 31)").
 */
function submitInput(
	body: {
		subject?: string | undefined;
		priority?: "low" | "normal" | "high" | undefined;
		compress?: boolean | undefined;
		encrypt?: boolean | undefined;
		sign?: boolean | undefined;
		mdn_mode?: "sync" | "async" | "none" | undefined;
		scheduled_at?: Date | undefined;
	},
	own: Pick<SubmitInput, "partnerId" | "contentType" | "filename" | "payload" | "headers">,
): SubmitInput {
	return {
		partnerId: own.partnerId,
		contentType: own.contentType,
		filename: own.filename,
		payload: own.payload,
		headers: own.headers,
		subject: body.subject,
		priority: body.priority,
		compress: body.compress,
		encrypt: body.encrypt,
		sign: body.sign,
		mdnMode: body.mdn_mode,
		scheduledAt: body.scheduled_at,
	};
}

function tooLargeForJson(): As2Error {
	return new As2Error(
		"REQUEST_TOO_LARGE",
		`JSON message bodies are limited to ${MAX_JSON_MESSAGE_BYTES} bytes; send larger payloads as multipart/form-data`,
	);
}
