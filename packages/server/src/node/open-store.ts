import type { As2Store } from "@as2kit/core/store";

/**
 * The storage adapter chosen by DATABASE_URL (decisions.md): `postgres://` or `postgresql://`
 * selects PostgreSQL, anything else (a path, `file:`) SQLite. Adapters load on demand.
 */
export async function openStore(databaseUrl: string): Promise<As2Store> {
	if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
		const pg = (await import("@as2kit/storage-pg")) as { createPgStore?: (o: { url: string }) => Promise<As2Store> };
		if (!pg.createPgStore) throw new Error("PostgreSQL storage is not available in this build (issue #8)");
		return pg.createPgStore({ url: databaseUrl });
	}
	const { createSqliteStore } = await import("@as2kit/storage-sqlite");
	return createSqliteStore({ url: databaseUrl });
}
