import { createSqliteStore } from "@as2kit/storage-sqlite";
import { runStoreConformance } from "./conformance.ts";

runStoreConformance("sqlite (:memory:)", { setup: async () => createSqliteStore({ url: ":memory:" }) });
