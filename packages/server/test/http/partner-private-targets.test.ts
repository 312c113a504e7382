import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECEIVE_JOB, SEND_MDN_JOB } from "../../src/service/messages/send-job-kind.ts";
import { PRIVATE_HOSTS } from "../helpers/private-hosts.ts";
import { createKey, createTestApp, register, type TestApp, TestClock } from "../helpers/test-app.ts";
import { eventually, jobContext, startWorker } from "../helpers/worker.ts";

/**
 * Partner URLs and the SSRF guard (issue #16, defect 4): without AS2_ALLOW_PRIVATE_TARGETS a
 * partner URL may not name a loopback, private or link-local host, in any of the forms the URL
 * parser accepts — AS2_ALLOW_HTTP does not change that — and a partner saved while it was
 * allowed is refused at every connection: partner tests, validation, live sends. Loopback
 * targets point at a listener that counts connections: it must see none.
 */
let listener: Server;
let connections = 0;
let port: number;
beforeAll(async () => {
	listener = createServer((socket) => {
		connections++;
		socket.destroy();
	});
	await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
	port = (listener.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

const partnerBody = (url: string, n = 1) => ({ name: `Private ${n}`, as2_id: `PRIVATE${n}`, url });

describe("without AS2_ALLOW_PRIVATE_TARGETS", () => {
	let t: TestApp;
	let token: string;
	let accountId: string;
	beforeAll(async () => {
		t = createTestApp({ allowHttp: true, defaultPlan: "enterprise" });
		({ token, accountId } = await register(t));
	});
	afterAll(() => t.close());

	it.each(PRIVATE_HOSTS.map((p) => p.host))(
		"refuses https://%s/ at POST and PATCH, tenant and master partners",
		async (host) => {
			const url = `https://${host}:${port}/as2`;
			const expectRefused = (response: { status: number; json: { error: { code: string }; errors: object } }) => {
				expect(response.status, host).toBe(422);
				expect(response.json.error.code).toBe("INVALID_ENDPOINT_URL");
				expect(response.json.errors).toEqual({ url: [expect.stringMatching(/AS2_ALLOW_PRIVATE_TARGETS=1/)] });
			};
			expectRefused(await t.call("POST", "/v1/partners", { token, body: partnerBody(url) }));
			expectRefused(await t.call("POST", `/v1/accounts/${accountId}/partners`, { token, body: partnerBody(url) }));
			const plain = await t.call("POST", "/v1/partners", {
				token,
				body: partnerBody("https://as2.partner.example/as2", 9),
			});
			expect(plain.status).toBe(201);
			expectRefused(await t.call("PATCH", `/v1/partners/${plain.json.data.id}`, { token, body: { url } }));
			await t.call("DELETE", `/v1/partners/${plain.json.data.id}`, { token });
			expect(connections).toBe(0);
		},
	);

	it("does not deliver an async MDN to a private Receipt-Delivery-Option, and does not retry it", async () => {
		await t.call("POST", "/v1/partners", {
			token,
			body: { name: "Asker", as2_id: "ASKER", url: "https://as2.asker.example/as2" },
		});
		const tenant = (await t.call("GET", "/v1/tenants", { token })).json.data[0];
		const received = await t.app.request("/as2/receive", {
			method: "POST",
			headers: {
				"as2-from": "ASKER",
				"as2-to": tenant.as2_id,
				"message-id": "<asks-for-a-private-receipt@asker.example>",
				"content-type": "application/edi-x12",
				"disposition-notification-to": "as2@asker.example",
				"receipt-delivery-option": `http://127.1:${port}/receipts`,
			},
			body: "ISA*00*~",
		});
		expect(received.status).toBe(200);
		for (const kind of [RECEIVE_JOB, SEND_MDN_JOB]) {
			for (const job of await t.store.jobs.list({ kind })) {
				await t.service.messages.handlers[kind]!(job, jobContext());
			}
		}
		const inbound = (await t.call("GET", "/v1/messages?direction=inbound", { token })).json.data[0];
		expect(inbound).toMatchObject({ status: "received", mdn_status: "failed" });
		expect(connections).toBe(0);
	});

	it("still takes a public https URL, and a private mdn.url (our own receipt address, never connected to)", async () => {
		const response = await t.call("POST", "/v1/partners", {
			token,
			body: { ...partnerBody("https://as2.partner.example/as2", 8), mdn: { url: "http://10.1.2.3/as2" } },
		});
		expect(response.status).toBe(201);
		await t.call("DELETE", `/v1/partners/${response.json.data.id}`, { token });
	});
});

describe("a partner saved while private targets were allowed, on a deployment that no longer allows them", () => {
	let dir: string;
	let after: TestApp;
	let token: string;
	let liveKey: string;
	const ids: string[] = [];
	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "as2kit-private-partners-"));
		const url = join(dir, "as2.sqlite");
		const clock = new TestClock();
		const before = createTestApp({ allowPrivateTargets: true, defaultPlan: "professional" }, undefined, { url, clock });
		try {
			const owner = await register(before);
			token = owner.token;
			liveKey = await createKey(before, token, {
				scope: "tenant",
				tenant_id: owner.tenantId,
				environment: "live",
				permissions: ["*"],
			});
			const loopback = PRIVATE_HOSTS.filter((p) => p.loopback);
			for (const [i, { host }] of loopback.entries()) {
				const created = await before.call("POST", "/v1/partners", {
					token,
					body: { ...partnerBody(`https://${host}:${port}/as2`, i), mdn_mode: "none" },
				});
				expect(created.status, host).toBe(201);
				ids.push(created.json.data.id);
			}
		} finally {
			await before.close();
		}
		after = createTestApp({ allowHttp: true, defaultPlan: "professional" }, undefined, { url, clock });
	});
	afterAll(async () => {
		await after?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("refuses them in the ping and mdn tests and in validation, connecting to nothing", async () => {
		for (const id of ids) {
			for (const test_type of ["ping", "full"]) {
				const tested = await after.call("POST", `/v1/partners/${id}/test`, { token: liveKey, body: { test_type } });
				expect(tested.status).toBe(200);
				expect(tested.json).toMatchObject({ success: false, data: { results: { connectivity: false } } });
				expect(tested.json.data.results.error).toMatch(/^refused: .*AS2_ALLOW_PRIVATE_TARGETS=1/);
			}
			const mdn = await after.call("POST", `/v1/partners/${id}/test`, { token: liveKey, body: { test_type: "mdn" } });
			const transmit = mdn.json.data.timeline.find((s: { step: string }) => s.step === "transmit");
			expect(transmit).toMatchObject({ status: "failure", details: { error: expect.stringMatching(/^refused: /) } });
			const validated = await after.call("POST", `/v1/partners/${id}/validate`, { token });
			const reachability = validated.json.checks.find((c: { name: string }) => c.name === "endpoint_accessibility");
			expect(reachability).toMatchObject({ status: "fail", issue: "UNREACHABLE_ENDPOINT" });
		}
		expect(connections).toBe(0);
	});

	it("fails a live send at once with INVALID_ENDPOINT_URL (not retried), connecting to nothing", async () => {
		const worker = startWorker(after);
		try {
			const sent = await after.call("POST", "/v1/messages", {
				token: liveKey,
				body: {
					partner_id: ids[0],
					content_type: "application/edi-x12",
					payload: { content: "ISA*00*~" },
				},
			});
			expect(sent.status, sent.text).toBe(202);
			const failed = await eventually(async () => {
				const message = (await after.call("GET", `/v1/messages/${sent.json.data.id}`, { token })).json.data;
				return message.status === "failed" ? message : null;
			}, "the send to fail");
			expect(failed).toMatchObject({ error_code: "INVALID_ENDPOINT_URL", attempts: 1 });
			expect(failed.error_message).toMatch(/^refused: .*AS2_ALLOW_PRIVATE_TARGETS=1/);
		} finally {
			await worker.stop();
		}
		expect(connections).toBe(0);
	});
});
