import { formatId, type IdStore } from "@as2kit/core/store";
import type { Pool } from "pg";
import type { Runner } from "../connection.ts";
import { firstText } from "../undescribed-query.ts";

/**
 * One PostgreSQL sequence per prefix (`ids_msg_` …), created on first use. A sequence hands
 * out values without locks and outside transactions: every transaction that writes an event
 * takes an `evt_` id, and a counter row would hold all of them in line until each commits.
 * A rolled-back transaction leaves a gap, which identifiers allow (decisions.md, Identifiers).
 */
export function createIdStore(runner: Runner, ensure: (prefix: string) => Promise<string>): IdStore {
	return {
		next: async (prefix) => {
			const sequence = await ensure(prefix);
			const [value] = await runner.query("select nextval($1::regclass) as value", [sequence], firstText);
			return formatId(prefix, Number(value));
		},
	};
}

/**
 * Creates each prefix's sequence once per process, outside any transaction, on a connection
 * of its own (`ddl`): a transaction asking for its first id holds a pooled connection, and
 * with every pooled connection held by such transactions, DDL waiting for one more would
 * never get it.
 */
export function sequenceEnsurer(ddl: Pool): (prefix: string) => Promise<string> {
	const known = new Map<string, Promise<string>>();
	return (prefix) => {
		let ready = known.get(prefix);
		if (!ready) {
			if (!/^[a-z][a-z0-9_]*$/.test(prefix))
				throw new Error(`storage-pg: unusable id prefix ${JSON.stringify(prefix)}`);
			const name = `"ids_${prefix}"`;
			ready = createSequence(ddl, name).then(() => name);
			ready.catch(() => known.delete(prefix));
			known.set(prefix, ready);
		}
		return ready;
	};
}

async function createSequence(ddl: Pool, name: string): Promise<void> {
	try {
		await ddl.query(`create sequence if not exists ${name}`);
	} catch (error) {
		// Two instances creating the same sequence at once: one of them meets the other's row
		// in pg_type or pg_class (23505, 42P07); the sequence exists either way.
		const code = (error as { code?: string }).code;
		if (code !== "23505" && code !== "42P07") throw error;
	}
}
