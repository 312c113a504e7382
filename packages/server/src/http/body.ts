import { As2Error } from "@as2kit/core";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import * as v from "valibot";
import { FieldChecks, isFieldError } from "../service/validation-error.ts";
import { unreadableBody } from "./body-read-errors.ts";
import { checkJsonShape, MAX_BODY_DEPTH, MAX_BODY_VALUES, tooDeep, tooManyValues } from "./body-shape.ts";
import type { AppEnv } from "./context.ts";
import { schemaError } from "./field-errors.ts";
import { textError, textFieldErrors } from "./request-text.ts";

/** Bodies of JSON endpoints are small; payload uploads take the streaming path instead. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

type BodyEnv<S extends v.GenericSchema> = AppEnv & { Variables: { body: v.InferOutput<S> } };

export interface BodyOptions<S extends v.GenericSchema> {
	maxBytes?: number;
	/**
	 * An authorization that depends on what the body asks for (or on the object it changes):
	 * runs on the body as read, before any validation, so that a caller without the grant
	 * learns nothing but 403 (README, Who may do what). Throws to refuse.
	 */
	authorize?: (c: Context<BodyEnv<S>>, raw: unknown) => void | Promise<void>;
	/**
	 * The service's checks of the values (a URL's target, known event kinds, …): run on the
	 * fields that passed the schema even when others failed it, so that one 422 names every
	 * invalid field (issue #16, defect 9). `failed` names the top-level fields the schema
	 * refused, whose checks (and those of fields that depend on them) are moot. Throws a field
	 * error (422) to refuse.
	 */
	check?: (
		c: Context<BodyEnv<S>>,
		input: Partial<v.InferOutput<S>>,
		failed: ReadonlySet<string>,
	) => void | Promise<void>;
}

/**
 * Reads the request body as JSON, a URL-encoded form or a multipart form (interface spec,
 * Transport), validates it with `schema`, then `check`, and puts the result in `c.get("body")`.
 * Malformed JSON is 400 INVALID_JSON; another media type 415; more than `maxBytes` 413; failed
 * checks one 422 naming every field at fault.
 */
export function body<S extends v.GenericSchema>(
	schema: S,
	options: BodyOptions<S> = {},
): MiddlewareHandler<BodyEnv<S>> {
	const maxBytes = options.maxBytes ?? DEFAULT_BODY_LIMIT;
	const tooLarge = () => new As2Error("REQUEST_TOO_LARGE", `the request body exceeds ${maxBytes} bytes`);
	return async (c, next) => {
		const raw = await readLimitedBody(c, maxBytes, tooLarge);
		await options.authorize?.(c, raw);
		const result = v.safeParse(schema, raw);
		const fields = new FieldChecks();
		if (!result.success) fields.add(schemaError(result.issues));
		const badText = textFieldErrors(raw);
		if (Object.keys(badText).length > 0) fields.add(textError(badText));
		const failed = failedFields(result.success ? [] : result.issues, badText);
		const passed = failed && fieldsThatPassed(result.output, failed);
		if (options.check && passed && failed) {
			try {
				await options.check(c, passed, failed);
			} catch (error) {
				if (!isFieldError(error)) throw error;
				fields.add(error);
			}
		}
		fields.throwIfAny();
		c.set("body", result.output);
		await next();
	};
}

/**
 * The top-level fields the schema's issues or the text checks name (a field holding text no
 * store can take is never handed to the checks, which may query a store); null when an issue
 * is about the body itself.
 */
function failedFields(issues: readonly v.BaseIssue<unknown>[], badText: Record<string, string[]>): Set<string> | null {
	const failed = new Set<string>();
	for (const issue of issues) {
		const key = issue.path?.[0]?.key;
		if (key === undefined) return null;
		failed.add(String(key));
	}
	for (const path of Object.keys(badText)) {
		if (path === "request") return null;
		failed.add(path.split(".")[0]!);
	}
	return failed;
}

/** The top-level fields of an object body without the failed ones; null for a body that is no object. */
function fieldsThatPassed(output: unknown, failed: ReadonlySet<string>): Record<string, unknown> | null {
	if (typeof output !== "object" || output === null || Array.isArray(output)) return null;
	return Object.fromEntries(Object.entries(output).filter(([key]) => !failed.has(key)));
}

/**
 * `readBody` under a byte limit. A declared Content-Length is checked before anything is read
 * (Node's HTTP parser then delivers exactly that many bytes), and the body is read in one
 * call: @hono/node-server then reads the socket directly, where touching `Request.body`
 * builds a web Request, a ReadableStream and an AbortSignal for every request (about 3% of
 * the CPU of a small POST). A body without a length (chunked) is counted as it streams in.
 */
export async function readLimitedBody(c: Context, maxBytes: number, tooLarge: () => Error): Promise<unknown> {
	const declared = declaredLength(c);
	if (declared !== null) {
		if (declared > maxBytes) throw tooLarge();
		return readBody(c);
	}
	let value: unknown;
	await bodyLimit({
		maxSize: maxBytes,
		onError: () => {
			throw tooLarge();
		},
	})(c, async () => {
		value = await readBody(c);
	});
	return value;
}

/** Content-Length when it alone delimits the body (RFC 9112 §6.3: Transfer-Encoding overrides it), else null. */
export function declaredLength(c: Context): number | null {
	const length = c.req.header("content-length");
	if (length === undefined || c.req.header("transfer-encoding") !== undefined || !/^\d+$/.test(length)) return null;
	return Number(length);
}

/** The body as a plain value: `{}` when there is none. */
export async function readBody(c: Context): Promise<unknown> {
	const type = mediaType(c.req.header("content-type"));
	if (type === "multipart/form-data") return fromForm(await c.req.formData().catch(unreadableBody));
	const text = await c.req.text().catch(unreadableBody);
	if (text.trim().length === 0) return {};
	if (type === "application/json" || type?.endsWith("+json")) {
		checkJsonShape(text);
		try {
			return JSON.parse(text);
		} catch {
			throw new As2Error("INVALID_JSON", "the request body is not valid JSON");
		}
	}
	if (type === "application/x-www-form-urlencoded" && !looksLikeJson(text)) return fromForm(new URLSearchParams(text));
	throw unsupportedMediaType(type, text);
}

/**
 * `curl -d '{…}'` without `-H 'Content-Type: application/json'` sends JSON labelled as a form;
 * read as one it would be a single odd field and a 422 on every required one.
 */
function looksLikeJson(text: string): boolean {
	return /^\s*[{[]/.test(text);
}

/** The 415 of a body the API does not read, naming what to send instead; `text` when it was read. */
export function unsupportedMediaType(type: string | null, text?: string): As2Error {
	const accepted = "send application/json, application/x-www-form-urlencoded or multipart/form-data";
	if (text !== undefined && looksLikeJson(text)) {
		const given = type ? `Content-Type ${type}` : "no Content-Type";
		return new As2Error(
			"UNSUPPORTED_MEDIA_TYPE",
			`the body is JSON but came with ${given}: send it with Content-Type: application/json`,
		);
	}
	const problem = type ? `Content-Type ${type} is not read here` : "the request has a body but no Content-Type";
	return new As2Error("UNSUPPORTED_MEDIA_TYPE", `${problem}: ${accepted}`);
}

export function mediaType(header: string | undefined): string | null {
	return header ? header.split(";")[0]!.trim().toLowerCase() : null;
}

/**
 * A form as the object its JSON twin would be: `a[]` and repeated keys are lists, `a[b]`
 * nests, `true`/`false` are booleans. Files keep their `File` value. Linear in the number of
 * fields (a repeated key appends in place: copying the list each time made 20,000 `a=&`
 * take 15 s); more than {@link MAX_BODY_VALUES} fields is 413, nesting deeper than
 * {@link MAX_BODY_DEPTH} 422.
 */
export function fromForm(form: Iterable<[string, FormDataEntryValue]>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	let fields = 0;
	for (const [key, raw] of form) {
		if (++fields > MAX_BODY_VALUES) throw tooManyValues();
		const value = raw === "true" ? true : raw === "false" ? false : raw;
		const isList = key.endsWith("[]");
		const path = (isList ? key.slice(0, -2) : key).replace(/\]/g, "").split("[");
		if (path.length > MAX_BODY_DEPTH) throw tooDeep();
		if (path.some((segment) => UNSAFE_KEYS.has(segment))) continue;
		let target = out;
		for (const segment of path.slice(0, -1)) {
			const next = ownValue(target, segment);
			if (typeof next !== "object" || next === null || Array.isArray(next)) target[segment] = {};
			target = target[segment] as Record<string, unknown>;
		}
		const leaf = path.at(-1)!;
		const existing = ownValue(target, leaf);
		if (existing === undefined) target[leaf] = isList ? [value] : value;
		else if (Array.isArray(existing)) existing.push(value);
		else target[leaf] = [existing, value];
	}
	return out;
}

/** Own properties only: a field named `toString` is a field, not Object.prototype's method. */
function ownValue(target: Record<string, unknown>, key: string): unknown {
	return Object.hasOwn(target, key) ? target[key] : undefined;
}

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
