/**
 * Embedding as2kit: your own Hono app keeps its routes, and the whole as2kit REST surface
 * (auth, keys, tenants, partners, messages …) lives under `/as2kit`. Storage and blobs are
 * yours to choose; the job worker runs in your process too.
 *
 * Run it from the repository root: `npm start -w examples/mount-in-hono-app` (or
 * `npx tsx examples/mount-in-hono-app/mount-in-hono-app.ts`; `PORT` picks the port, 3000 by
 * default), or import `createHostApp` from your own code. Its data goes to `./data/`.
 */
import {
	createApp,
	createBackground,
	createFsBlobStore,
	createService,
	type Logger,
	loadMasterKey,
} from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { Hono } from "hono";

export function createHostApp(options: {
	databaseUrl: string;
	blobDir: string;
	/** The same key on every start: private keys are sealed and tokens hashed under it. */
	masterKey: Uint8Array;
	/** Where as2kit logs (pino's shape); without one it is silent, unexpected errors included. */
	logger?: Logger;
}) {
	const service = createService({
		store: createSqliteStore({ url: options.databaseUrl }),
		blobs: createFsBlobStore(options.blobDir),
		config: { masterKey: options.masterKey },
		...(options.logger ? { logger: options.logger } : {}),
	});
	const host = new Hono();
	host.get("/", (c) => c.text("my product's home page"));
	host.route("/as2kit", createApp({ service, basePath: "/as2kit" }));
	const background = createBackground(service);
	return { host, service, background };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const { serve } = await import("@hono/node-server");
	const { pino } = await import("pino");
	const logger = pino() as unknown as Logger;
	const { host, background } = createHostApp({
		databaseUrl: "./data/embedded.sqlite",
		blobDir: "./data/embedded-blobs",
		// AS2_MASTER_KEY from your secret store; without it a key generated into ./data/master.key
		// on the first start and read on every later one (a new key each start would make every
		// sealed private key and webhook secret unreadable: 500 INTERNAL_ERROR after a restart).
		masterKey: loadMasterKey(process.env.AS2_MASTER_KEY ?? null, "./data", logger),
		logger,
	});
	background.start();
	const port = Number(process.env.PORT ?? 3000);
	serve({ fetch: host.fetch, port, hostname: "127.0.0.1" }, (address) =>
		console.log(`my app on http://127.0.0.1:${address.port}, as2kit under /as2kit (docs: /as2kit/docs)`),
	);
}
