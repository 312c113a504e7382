/**
 * What every answer of the REST surface must be, whatever was asked (interface spec, Errors;
 * decisions.md, Errors and Rate limits): never a 5xx; JSON; an error in one of the two
 * shapes, its `type` the category of its status; and on every authenticated `/v1` answer the
 * X-RateLimit-* headers. `problemsOf` returns what is wrong, so a suite can list every
 * failing request at once.
 */
import { execFile } from "node:child_process";
import * as v from "valibot";
import { errorSchema, validationErrorSchema } from "../../packages/server/src/http/openapi.ts";

export interface Answer {
	status: number;
	headers: Headers;
	text: string;
}

/** The spec's categories (Errors, Categories) by status; statuses it leaves to several types are absent. */
const TYPE_OF_STATUS: Record<number, string> = {
	401: "authentication_error",
	402: "billing_error",
	403: "authorization_error",
	404: "resource_error",
	406: "validation_error",
	415: "validation_error",
	422: "validation_error",
	429: "rate_limit_error",
};

export interface AnswerContext {
	/** The request carried no body bytes: 415 is never right. */
	bodiless: boolean;
	/** A `/v1` request with a valid credential: X-RateLimit-* expected. */
	rateLimited: boolean;
	/** `/as2/*` answers are AS2 (text or an MDN), not the JSON API. */
	as2: boolean;
	/** HEAD, or a payload download: the body is not JSON. */
	rawBody: boolean;
}

export function problemsOf(answer: Answer, context: AnswerContext): string[] {
	const problems: string[] = [];
	if (answer.status >= 500 || answer.status < 100) problems.push(`status ${answer.status}`);
	if (context.bodiless && answer.status === 415) problems.push("415 for a request without a body");
	if (context.rateLimited) {
		for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
			if (!/^\d+$/.test(answer.headers.get(name) ?? "")) problems.push(`no ${name}`);
		}
	}
	if (context.as2 || (context.rawBody && answer.status < 400)) return problems;
	if (!(answer.headers.get("content-type") ?? "").startsWith("application/json")) {
		problems.push(`content-type ${answer.headers.get("content-type")}`);
		return problems;
	}
	if (answer.status >= 400) problems.push(...errorShapeProblems(answer));
	return problems;
}

/**
 * Interface spec, Error body shapes, with decisions.md (a 422 carries both, with at least one
 * field): the shapes the OpenAPI document publishes, and the category of the status.
 */
function errorShapeProblems(answer: Answer): string[] {
	let body: unknown;
	try {
		body = JSON.parse(answer.text);
	} catch {
		return ["error body is not JSON"];
	}
	const problems: string[] = [];
	if (answer.status === 422) {
		if (!v.is(validationErrorSchema, body)) return ["not the 422 error shape"];
		if (Object.keys(body.errors).length === 0) problems.push("422 naming no field");
	} else if (!v.is(errorSchema, body)) return ["not the categorized error shape"];
	const expected = TYPE_OF_STATUS[answer.status];
	if (expected && body.error.type !== expected) problems.push(`error.type ${body.error.type} for ${answer.status}`);
	return problems;
}

/**
 * One request with the `curl` CLI exactly as a user types it (`curl -X DELETE <url> -H
 * "Authorization: Bearer …"`: no body, no Content-Type, no Content-Length); `--include` and
 * `--write-out` only change what curl prints.
 */
export function curlRequest(url: string, method: string, headers: Record<string, string>): Promise<Answer> {
	const args = ["--silent", "--show-error", "--max-time", "30", "--include", "--write-out", "\n%{http_code}"];
	args.push("-X", method, url);
	for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
	return new Promise((resolve, reject) => {
		execFile("curl", args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
			if (error) return reject(new Error(`curl ${method} ${url}: ${error.message}`));
			const codeAt = stdout.lastIndexOf("\n");
			const response = stdout.slice(0, codeAt);
			const headEnd = response.indexOf("\r\n\r\n");
			const parsed = new Headers();
			for (const line of response.slice(0, headEnd).split("\r\n").slice(1)) {
				const colon = line.indexOf(":");
				if (colon > 0) parsed.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
			}
			resolve({ status: Number(stdout.slice(codeAt + 1)), headers: parsed, text: response.slice(headEnd + 4) });
		});
	});
}
