/**
 * Embedding as2kit: your own Hono app keeps its routes, and the whole as2kit REST surface
 * (auth, keys, tenants, partners, messages …) lives under `/as2kit`. Storage and blobs are
 * yours to choose; the job worker runs in your process too.
 *
 * Run it: `npx tsx examples/mount-in-hono-app/mount-in-hono-app.ts`
 * (or import `createHostApp` from your own code).
 */
import { randomBytes } from "node:crypto";
import { createApp, createBackground, createFsBlobStore, createService } from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { Hono } from "hono";

export function createHostApp(options: { databaseUrl: string; blobDir: string; masterKey: Uint8Array }) {
	const service = createService({
		store: createSqliteStore({ url: options.databaseUrl }),
		blobs: createFsBlobStore(options.blobDir),
		config: { masterKey: options.masterKey },
	});
	const host = new Hono();
	host.get("/", (c) => c.text("my product's home page"));
	host.route("/as2kit", createApp({ service, basePath: "/as2kit" }));
	const background = createBackground(service);
	return { host, service, background };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const { serve } = await import("@hono/node-server");
	const { host, background } = createHostApp({
		databaseUrl: "./data/embedded.sqlite",
		blobDir: "./data/embedded-blobs",
		masterKey: randomBytes(32), // keep a real one in your secret store
	});
	background.start();
	serve({ fetch: host.fetch, port: 3000, hostname: "127.0.0.1" });
	console.log("my app on http://127.0.0.1:3000, as2kit under /as2kit (docs: /as2kit/docs)");
}
