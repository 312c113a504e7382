import { formatId, type IdStore } from "@as2kit/core/store";
import { sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { sequences } from "../schema.ts";

export function createIdStore(exec: Exec): IdStore {
	return {
		next: (prefix) =>
			exec((db) => {
				const row = db
					.insert(sequences)
					.values({ prefix, value: 1 })
					.onConflictDoUpdate({ target: sequences.prefix, set: { value: sql`${sequences.value} + 1` } })
					.returning({ value: sequences.value })
					.get()!;
				return formatId(prefix, row.value);
			}),
	};
}
