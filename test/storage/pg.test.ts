import type { As2Store } from "@as2kit/core/store";
import { createPgStore } from "@as2kit/storage-pg";
import { describe } from "vitest";
import { createTestDatabase, pgUrl, type TestDatabase } from "../pg/databases.ts";
import { runStoreConformance } from "./conformance.ts";

const databases = new WeakMap<As2Store, TestDatabase>();

// Outside CI on a machine without PostgreSQL there is nothing to run against; under CI the
// global setup fails instead (test/pg/global-setup.ts).
describe.skipIf(pgUrl() === null)("storage-pg", () => {
	runStoreConformance("postgresql", {
		setup: async () => {
			const database = await createTestDatabase();
			const store = await createPgStore({ url: database.url, poolSize: 4 });
			databases.set(store, database);
			return store;
		},
		teardown: async (store) => {
			await store.close();
			await databases.get(store)?.drop();
		},
	});
});
