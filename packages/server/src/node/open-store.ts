import type { As2Store } from "@as2kit/core/store";

/**
 * The storage adapter chosen by DATABASE_URL (decisions.md): `postgres://` or `postgresql://`
 * selects PostgreSQL (several instances on one database), anything else (a path, `file:`)
 * SQLite. Adapters load on demand, so a deployment loads only the driver it uses.
 * `checkTransactions` (AS2_CHECK_TRANSACTIONS) refuses the root store inside a transaction;
 * `poolSize` (DATABASE_POOL_SIZE) bounds PostgreSQL's connections, and means nothing to SQLite.
 */
export async function openStore(
	databaseUrl: string,
	options: { checkTransactions?: boolean; poolSize?: number } = {},
): Promise<As2Store> {
	const checkTransactions = options.checkTransactions ?? false;
	if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
		const { createPgStore } = await import("@as2kit/storage-pg");
		return createPgStore({ url: databaseUrl, checkTransactions, poolSize: options.poolSize });
	}
	const { createSqliteStore } = await import("@as2kit/storage-sqlite");
	return createSqliteStore({ url: databaseUrl, checkTransactions });
}
