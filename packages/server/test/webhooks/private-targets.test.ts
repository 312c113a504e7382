import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { createBackground } from "../../src/service/jobs/background.ts";
import { createTestApp, TestClock } from "../helpers/test-app.ts";
import { type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld } from "../helpers/webhook-world.ts";

let dir: string;
let r: Receiver;
afterEach(async () => {
	await r.close();
	rmSync(dir, { recursive: true, force: true });
});

/**
 * The URL check at creation is not enough: a name may resolve to a private address later
 * (DNS rebinding), or the deployment may stop allowing private targets. Here an endpoint on
 * 127.0.0.1, created while AS2_ALLOW_PRIVATE_TARGETS=1, meets a deployment without it (but
 * still with AS2_ALLOW_HTTP=1, which does not imply it): the dispatcher refuses the address at
 * delivery time and records why; the receiver gets nothing.
 */
it("refuses a private target at delivery time unless AS2_ALLOW_PRIVATE_TARGETS=1", async () => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-private-"));
	const url = join(dir, "as2.sqlite");
	const clock = new TestClock();
	r = await startReceiver();
	const before = await createWebhookWorld({}, { url, clock });
	const { token } = before.owner;
	const endpoint = await before.createEndpoint({ url: r.url, events: ["account.updated"] });
	await before.close();

	const after = createTestApp(
		{ allowHttp: true, allowPrivateTargets: false, webhookRetryDelays: [0, 1, 2] },
		undefined,
		{ url, clock },
	);
	const bg = createBackground(after.service, { pollMs: 10 });
	bg.start();
	try {
		expect((await after.call("PATCH", "/v1/account", { token, body: { name: "Renamed" } })).status).toBe(200);
		const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries`;
		// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
		let attempted: any = null;
		await waitFor(async () => {
			const list = (await after.call("GET", path, { token })).json.data;
			attempted = list[0]?.attempts === 1 ? list[0] : null;
			return attempted !== null;
		}, "the refused attempt");
		// A failed attempt; the delivery waits for its next try.
		expect(attempted.status).not.toBe("succeeded");
		expect(attempted.last_error).toMatch(/private|loopback|not allowed/i);
		expect(r.requests).toHaveLength(0);
	} finally {
		await bg.stop();
		await after.close();
	}
});
