import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { createTestApp, type TestApp } from "../helpers/test-app.ts";

/**
 * `/metrics` behind AS2_METRICS_TOKEN (decisions.md, Running): the scraper's bearer token is
 * read as the API reads one (RFC 9110 §11.1: the scheme is case-insensitive), a refusal names
 * the scheme (§11.6.1), and nothing but the exact token opens it.
 */
const TOKEN = "scrape-token-0123456789";
let t: TestApp;
let app: ReturnType<typeof createApp>;

beforeAll(() => {
	t = createTestApp();
	app = createApp({ service: t.service, metricsToken: TOKEN });
});
afterAll(() => t.close());

const scrape = (headers: Record<string, string> = {}, path = "/metrics") => app.request(path, { headers });

describe("GET /metrics with AS2_METRICS_TOKEN", () => {
	it("takes the token with the scheme in any case and tolerated whitespace, as the API does", async () => {
		for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer  ${TOKEN} `]) {
			const response = await scrape({ authorization: header });
			expect(response.status, header).toBe(200);
			expect(await response.text()).toContain("as2kit_http_requests_total");
		}
	});

	it("refuses anything but the token, 401 with WWW-Authenticate: Bearer and no metrics", async () => {
		const forged: Array<[Record<string, string>, string?]> = [
			[{}],
			[{ authorization: `Bearer ${TOKEN}x` }],
			[{ authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
			[{ authorization: `Bearer ${TOKEN.toUpperCase()}` }],
			[{ authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` }],
			[{ authorization: TOKEN }],
			[{ authorization: `Bearer ${TOKEN} ${TOKEN}` }],
			[{}, `/metrics?token=${TOKEN}`],
		];
		for (const [headers, path] of forged) {
			const response = await scrape(headers, path);
			expect(response.status, JSON.stringify([headers, path])).toBe(401);
			expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
			expect(await response.text()).not.toContain("as2kit_");
		}
	});
});
