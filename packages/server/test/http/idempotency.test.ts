import type { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/context.ts";
import { idempotent } from "../../src/http/middleware/idempotent.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * The middleware on a test route that creates a numbered "thing", so a test can count how
 * many were made. The spec's idempotent operations arrive with later issues and reuse it.
 */
let t: TestApp;
let created: number;
let gate: Promise<void> | null;
let token: string;
const KEY = "3f6c1f0e-8a5b-4c4d-9e2f-0a1b2c3d4e5f";

function routes(app: Hono<AppEnv>) {
	app.post("/v1/__things", idempotent(), async (c) => {
		const body = (await c.req.json()) as { fail?: boolean };
		if (gate) await gate;
		if (body.fail) return c.json({ message: "boom" }, 503);
		created += 1;
		return c.json({ message: "created", data: { id: created, tenant: c.var.principal.tenantId } }, 201);
	});
}

beforeEach(async () => {
	created = 0;
	gate = null;
	t = createTestApp({}, routes);
	const owner = await register(t);
	token = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
});
afterEach(() => t.close());

const post = (body: unknown, key = KEY, headers: Record<string, string> = {}) =>
	t.call("POST", "/v1/__things", { token, body, headers: { "idempotency-key": key, ...headers } });

describe("Idempotency-Key", () => {
	it("replays the original status and body to a repeat", async () => {
		const first = await post({ n: 1 });
		const second = await post({ n: 1 });
		expect(first.status).toBe(201);
		expect(second.status).toBe(201);
		expect(second.text).toBe(first.text);
		expect(second.headers.get("idempotent-replayed")).toBe("true");
		expect(created).toBe(1);
	});

	it("makes two concurrent requests with one key create one resource", async () => {
		let open!: () => void;
		gate = new Promise((resolve) => {
			open = resolve;
		});
		// A barrier, not a timing window: the gate opens once the second request has found the
		// first one's key still pending, so the two truly overlap.
		let secondWaits!: () => void;
		const overlapping = new Promise<void>((resolve) => {
			secondWaits = resolve;
		});
		const repository = t.store.idempotency;
		const begin = repository.begin.bind(repository);
		repository.begin = async (record, now) => {
			const outcome = await begin(record, now);
			if (outcome.outcome === "existing" && outcome.record.state === "pending") secondWaits();
			return outcome;
		};
		const first = post({ n: 1 });
		const second = post({ n: 1 });
		await overlapping;
		open();
		const [a, b] = await Promise.all([first, second]);
		expect(created).toBe(1);
		expect([a.status, b.status]).toEqual([201, 201]);
		expect(a.json).toEqual(b.json);
	});

	it("refuses the key with another request body (422)", async () => {
		await post({ n: 1 });
		const other = await post({ n: 2 });
		expect(other.status).toBe(422);
		expect(other.json.errors).toHaveProperty("Idempotency-Key");
		expect(created).toBe(1);
	});

	it("requires a UUID v4", async () => {
		const response = await post({ n: 1 }, "not-a-uuid");
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty("Idempotency-Key");
		expect((await post({ n: 1 }, "3f6c1f0e-8a5b-1c4d-9e2f-0a1b2c3d4e5f")).status).toBe(422);
	});

	it("keeps keys for 24 hours", async () => {
		await post({ n: 1 });
		t.clock.advance(23 * 3600);
		await post({ n: 1 });
		expect(created).toBe(1);
		t.clock.advance(3601);
		await post({ n: 1 });
		expect(created).toBe(2);
	});

	it("does not keep a server failure, so the client may retry", async () => {
		expect((await post({ fail: true })).status).toBe(503);
		expect((await post({ fail: true })).headers.get("idempotent-replayed")).toBeNull();
	});

	it("scopes keys per tenant", async () => {
		await t.call("POST", "/v1/tenants", { token, body: { name: "Second" } });
		const a = await post({ n: 1 });
		const b = await post({ n: 1 }, KEY, { "x-tenant-id": "tnt_000002" });
		expect(created).toBe(2);
		expect([a.json.data.tenant, b.json.data.tenant]).toEqual(["tnt_000001", "tnt_000002"]);
	});

	it("is a plain request without the header", async () => {
		await t.call("POST", "/v1/__things", { token, body: { n: 1 } });
		await t.call("POST", "/v1/__things", { token, body: { n: 1 } });
		expect(created).toBe(2);
	});
});
