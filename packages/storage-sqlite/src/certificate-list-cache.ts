import type { CertificateRecord } from "@as2kit/core/store";
import type Database from "better-sqlite3";

const VERSION = `select "version" from "certificates_version" where "id" = 1`;
/** Owners (partners, tenants' identities) kept at most; past it the cache starts over. */
const MAX_OWNERS = 10_000;

export interface CertificateListCache {
	/**
	 * The owner's certificates as this connection's snapshot has them: kept from an earlier
	 * `read` while no certificate has changed since (certificates_version, migration 0009), read
	 * again otherwise. Call it inside one read transaction, so the version and the list agree.
	 */
	get(client: Database.Database, owner: string, read: () => CertificateRecord[]): CertificateRecord[];
}

/**
 * Every message reads its certificates several times (signing identity, the partner's
 * encryption and verification certificates): whole rows with their PEM and sealed key, about
 * 30 µs each. They change rarely, and any change, by any connection or process, increments one
 * version row in the same transaction, so a read of that row (~2 µs) tells whether the lists
 * kept here are still the database's. Only the store outside transactions uses it: a change
 * read inside a transaction that then rolls back must never be kept.
 */
export function createCertificateListCache(): CertificateListCache {
	let version = -1;
	const lists = new Map<string, CertificateRecord[]>();
	return {
		get(client, owner, read) {
			const current = (client.prepare(VERSION).get() as { version: number }).version;
			if (current !== version) {
				lists.clear();
				version = current;
			}
			let list = lists.get(owner);
			if (!list) {
				list = read();
				if (lists.size >= MAX_OWNERS) lists.clear();
				lists.set(owner, list);
			}
			// Copies: a caller that changes a record it was given changes nobody else's.
			return list.map((record) => ({ ...record }));
		},
	};
}
