import { formatId, type IdStore } from "@as2kit/core/store";
import type { Exec } from "../connection.ts";
import { reserveEventSeq } from "./event-seq.ts";

// Every record takes an id: plain SQL, since drizzle's statement building costs more than this upsert.
export const NEXT_VALUE = `insert into "sequences" ("prefix", "value") values (?, 1)
	on conflict ("prefix") do update set "value" = "sequences"."value" + 1 returning "value"`;

export function createIdStore(exec: Exec): IdStore {
	return {
		next: (prefix) =>
			exec((db) =>
				formatId(
					prefix,
					// Event ids are their events' seq (event-seq.ts).
					prefix === "evt_"
						? reserveEventSeq(db.$client)
						: (db.$client.prepare(NEXT_VALUE).get(prefix) as { value: number }).value,
				),
			),
	};
}
