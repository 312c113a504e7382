import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createHostApp } from "./mount-in-hono-app.ts";

const dir = mkdtempSync(join(tmpdir(), "as2kit-example-"));
const { host, service } = createHostApp({
	databaseUrl: ":memory:",
	blobDir: dir,
	masterKey: new Uint8Array(32).fill(1),
});
afterAll(async () => {
	await service.deps.store.close();
	rmSync(dir, { recursive: true, force: true });
});

it("examples/mount-in-hono-app serves the host's routes and as2kit under /as2kit", async () => {
	expect(await (await host.request("/")).text()).toBe("my product's home page");
	expect(await (await host.request("/as2kit/health")).json()).toEqual({ status: "ok" });
	const registered = await host.request("/as2kit/auth/register", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			name: "Embedded",
			email: "e@example.com",
			password: "long enough!",
			password_confirmation: "long enough!",
		}),
	});
	expect(registered.status).toBe(201);
	const { token } = (await registered.json()) as { token: string };
	const tenants = await host.request("/as2kit/v1/tenants", { headers: { authorization: `Bearer ${token}` } });
	expect(tenants.status).toBe(200);
	const doc = (await (await host.request("/as2kit/openapi.json")).json()) as {
		servers: { url: string }[];
		paths: object;
	};
	expect(doc.servers).toEqual([{ url: "/as2kit" }]);
	expect(Object.keys(doc.paths)).toContain("/v1/tenants");
	expect((await host.request("/as2kit/v1/nothing", { headers: { authorization: `Bearer ${token}` } })).status).toBe(
		404,
	);
});
