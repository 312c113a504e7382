import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expiryScanHandler } from "../../src/service/certificates/expiry-scan.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { jobContext } from "../helpers/worker.ts";

let t: TestApp;
const certs = makeCertificates();
// The test clock starts at 2026-03-01T09:00Z.
const soon = certs.selfSigned("expires-in-40-days", {
	validity: { from: new Date("2026-01-01Z"), to: new Date("2026-04-10T09:00:00Z") },
});
const later = certs.selfSigned("expires-next-year", {
	validity: { from: new Date("2026-01-01Z"), to: new Date("2027-01-01Z") },
});

beforeEach(() => {
	t = createTestApp();
});
afterEach(() => t.close());

describe("certificate expiry scan (injected clock)", () => {
	it("emits certificate.expiring 30 days ahead and certificate.expired once each, however often it runs", async () => {
		const owner = await register(t);
		await t.call("POST", "/v1/partners", {
			token: owner.token,
			body: { name: "P", as2_id: "P", url: "https://p.example" },
		});
		for (const pem of [soon.certPem, later.certPem]) {
			await t.call("POST", "/v1/partners/prt_000001/certificates", {
				token: owner.token,
				body: { name: "c", usage: "both", certificate: pem },
			});
		}
		const scan = expiryScanHandler(t.service.deps);
		const run = () => scan({} as never, jobContext());
		const kinds = async () =>
			(await t.store.events.list({ accountId: owner.accountId })).map((e) => e.kind).filter((k) => /expir/.test(k));

		await run();
		expect(await kinds()).toEqual([]);
		t.clock.advance(11 * 86_400); // 29 days before expiry
		await Promise.all([run(), run(), run()]); // three instances at once
		await run();
		expect(await kinds()).toEqual(["certificate.expiring"]);
		const [expiring] = await t.store.events.list({ accountId: owner.accountId, kind: "certificate.expiring" });
		expect(expiring?.data).toEqual({
			id: "cert_000002",
			name: "c",
			type: "partner",
			subject: "CN=expires-in-40-days",
			expires_at: "2026-04-10T09:00:00.000000Z",
			days_until_expiry: 29,
		});
		t.clock.advance(30 * 86_400);
		await Promise.all([run(), run()]);
		await run();
		expect(await kinds()).toEqual(["certificate.expiring", "certificate.expired"]);
		const [expired] = await t.store.events.list({ accountId: owner.accountId, kind: "certificate.expired" });
		expect(expired?.data).toMatchObject({
			id: "cert_000002",
			expires_at: "2026-04-10T09:00:00.000000Z",
			certificate_pem: expect.any(String),
		});
	});

	it("sends only certificate.expired for a certificate that is already past its date", async () => {
		const owner = await register(t);
		await t.call("POST", "/v1/partners", {
			token: owner.token,
			body: { name: "P", as2_id: "P", url: "https://p.example" },
		});
		const old = certs.selfSigned("long-gone", {
			validity: { from: new Date("2001-01-01Z"), to: new Date("2002-01-01Z") },
		});
		await t.call("POST", "/v1/partners/prt_000001/certificates", {
			token: owner.token,
			body: { name: "old", usage: "both", certificate: old.certPem },
		});
		await expiryScanHandler(t.service.deps)({} as never, jobContext());
		const kinds = (await t.store.events.list({ accountId: owner.accountId }))
			.map((e) => e.kind)
			.filter((k) => /expir/.test(k));
		expect(kinds).toEqual(["certificate.expired"]);
	});
});
