/**
 * A PostgreSQL store behind a synchronous factory: `createTestApp` is synchronous (SQLite
 * opens at once), PostgreSQL connects and migrates asynchronously. Every call waits for the
 * store to be ready, then goes to it; closing it drops its database.
 */
import type { As2Store } from "@as2kit/core/store";
import { createPgStore } from "@as2kit/storage-pg";
import { createTestDatabase } from "./databases.ts";

/**
 * On a store made here, `store[TEST_DATABASE_URL]` resolves to its database's URL: for test
 * helpers that load many rows at once (packages/server/test/helpers/bulk-messages.ts).
 */
export const TEST_DATABASE_URL = Symbol("as2kit.test.database-url");

export function createDeferredPgStore(): As2Store {
	const opened = createTestDatabase().then(async (database) => ({
		database,
		store: await createPgStore({ url: database.url, poolSize: 4 }),
	}));
	const ready = opened.then(({ store }) => store);
	const repositories = new Map<string, unknown>();
	const repository = (name: string) => {
		let proxy = repositories.get(name);
		if (!proxy) {
			proxy = new Proxy(
				{},
				{
					// A method a test assigned (a spy wrapping the original) wins; any other goes to the store.
					get: (target: Record<string | symbol, unknown>, method) =>
						method in target
							? target[method]
							: (...args: unknown[]) =>
									ready.then((store) => {
										const repo = store[name as keyof As2Store] as unknown as Record<string | symbol, unknown>;
										return (repo[method] as (...a: unknown[]) => unknown).apply(repo, args);
									}),
				},
			);
			repositories.set(name, proxy);
		}
		return proxy;
	};
	return new Proxy({} as As2Store, {
		get: (_target, name: string | symbol) => {
			if (name === TEST_DATABASE_URL) return opened.then(({ database }) => database.url);
			if (name === "transaction")
				return <T>(fn: (tx: As2Store) => Promise<T>) => ready.then((store) => store.transaction(fn));
			if (name === "close")
				return async () => {
					const { database, store } = await opened;
					await store.close();
					await database.drop();
				};
			if (name === "then") return undefined;
			return repository(name as string);
		},
	});
}
