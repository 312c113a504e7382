/**
 * @module @as2kit/storage-sqlite — the as2kit storage port on SQLite (drizzle-orm +
 * better-sqlite3): the embedded default of the reference server.
 *
 * @example
 * import { createSqliteStore } from "@as2kit/storage-sqlite";
 * const store = createSqliteStore({ url: "./data/as2.sqlite" });
 */
export { createSqliteStore, type SqliteStoreOptions } from "./create-store.ts";
