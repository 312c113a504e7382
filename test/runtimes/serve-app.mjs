// Mounts the built server's `createApp` on storage-pg under Bun or Deno, served by the
// runtime's own HTTP server on 127.0.0.1 at a port it picks (issue #17). Arguments: the
// PostgreSQL URL and a blob directory. Prints `{"port":N}` once listening; stops on SIGTERM.
import { createApp, createFsBlobStore, createService } from "../../packages/server/dist/index.js";
import { createPgStore } from "../../packages/storage-pg/dist/index.js";

const [url, blobDir] = process.argv.slice(2);
const store = await createPgStore({ url, poolSize: 2 });
const service = createService({
	store,
	blobs: createFsBlobStore(blobDir),
	config: { masterKey: new Uint8Array(32).fill(7), passwordCostLog2: 10 },
});
const app = createApp({ service });
const port = listen(app.fetch);
console.log(JSON.stringify({ port }));
process.on("SIGTERM", async () => {
	await store.close?.();
	process.exit(0);
});

function listen(fetch) {
	if (globalThis.Bun) return globalThis.Bun.serve({ hostname: "127.0.0.1", port: 0, fetch }).port;
	if (globalThis.Deno) return globalThis.Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, fetch).addr.port;
	throw new Error("serve-app.mjs runs under Bun or Deno");
}
