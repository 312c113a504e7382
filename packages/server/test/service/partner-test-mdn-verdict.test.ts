import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildMdn, unpack } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * A partner test judges the partner's MDN as a real send would (mdn-verdict.ts): a partner
 * that answers an unsigned MDN where the agreement asks for a signed one makes every real
 * send wait for a valid MDN and fail at the timeout, so its test must fail too, not pass
 * with a warning.
 */
let partner: Server;
let url: string;
beforeAll(async () => {
	// A partner that reads the message and answers an unsigned, positive sync MDN with the right MIC.
	partner = createServer((request, response) => {
		void answerUnsigned(request).then(
			(mdn) => {
				response.writeHead(200, Object.fromEntries(mdn.headers));
				response.end(mdn.body);
			},
			() => {
				response.writeHead(500);
				response.end();
			},
		);
	});
	await new Promise<void>((resolve) => partner.listen(0, "127.0.0.1", resolve));
	url = `http://127.0.0.1:${(partner.address() as AddressInfo).port}/as2`;
});
afterAll(() => new Promise<void>((resolve) => partner.close(() => resolve())));

async function answerUnsigned(request: IncomingMessage) {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	const headers = Object.entries(request.headers).map(([name, value]) => [name, String(value)] as [string, string]);
	const message = await unpack({ headers, body: new Uint8Array(Buffer.concat(chunks)) });
	for await (const _ of message.payload);
	const report = await message.complete();
	return buildMdn({
		original: { messageId: message.messageId, from: message.from, to: message.to, mic: report.mic },
		disposition: { type: "processed" },
	});
}

describe("POST /v1/partners/{id}/test mdn, live", () => {
	let t: TestApp;
	let liveKey: string;
	beforeAll(async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const owner = await register(t);
		liveKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
	});
	afterAll(() => t.close());

	async function testWith(mdn: { signed: boolean }) {
		const created = await t.call("POST", "/v1/partners", {
			token: liveKey,
			body: { name: `Unsigned ${mdn.signed}`, as2_id: `UNSIGNED-${mdn.signed}`, url, mdn_mode: "sync", mdn },
		});
		expect(created.status, created.text).toBe(201);
		const tested = await t.call("POST", `/v1/partners/${created.json.data.id}/test`, {
			token: liveKey,
			body: { test_type: "mdn" },
		});
		expect(tested.status, tested.text).toBe(200);
		return tested.json;
	}

	it("fails when the partner answers an unsigned MDN and the agreement asks for a signed one", async () => {
		const result = await testWith({ signed: true });
		expect(result.success).toBe(false);
		const step = result.data.timeline.find((s: { step: string }) => s.step === "mdn");
		expect(step).toMatchObject({ status: "failure", details: { signed: false, mic_matches: true } });
		expect(step.details.rejected).toMatch(/unsigned/);
	});

	it("passes with the same MDN when the agreement does not ask for a signed one", async () => {
		const result = await testWith({ signed: false });
		expect(result.success, JSON.stringify(result.data.timeline)).toBe(true);
	});
});
