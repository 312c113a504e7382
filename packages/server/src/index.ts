/**
 * @module @as2kit/server — the as2kit reference server: the engine (`createService`), its
 * Hono REST host (`createApp`), and the Node entry (`startServer`).
 *
 * @example
 * import { createApp, createService, createFsBlobStore } from "@as2kit/server";
 * import { createSqliteStore } from "@as2kit/storage-sqlite";
 * const service = createService({ store: createSqliteStore({ url: "./as2.sqlite" }),
 *   blobs: createFsBlobStore("./blobs"), config: { masterKey } });
 * parent.route("/as2kit", createApp({ service, basePath: "/as2kit" }));
 */
export { createFsBlobStore } from "./blobs/fs-blob-store.ts";
export { type AppOptions, createApp } from "./http/app.ts";
export type { AppEnv } from "./http/context.ts";
export { HttpMetrics } from "./http/metrics.ts";
export { ServiceMetrics } from "./http/service-metrics.ts";
export { configFromEnv, type EnvConfig } from "./node/config-from-env.ts";
export { type RunningServer, startServer } from "./node/create-server.ts";
export { createEpcisThreadPool, type EpcisThreadPool, type EpcisThreadPoolOptions } from "./node/epcis-thread-pool.ts";
export { loadMasterKey } from "./node/master-key.ts";
export * from "./service/index.ts";
export { type Background, createBackground } from "./service/jobs/background.ts";
