/**
 * @module @as2kit/storage-pg — the as2kit storage port on PostgreSQL (drizzle-orm +
 * node-postgres): several stateless instances of the reference server on one database.
 *
 * @example
 * import { createPgStore } from "@as2kit/storage-pg";
 * const store = await createPgStore({ url: "postgres://as2kit@db.internal/as2kit" });
 */
export { createPgStore, type PgStoreOptions } from "./create-store.ts";
