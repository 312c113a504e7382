import { getTableColumns } from "drizzle-orm";
import { messageStates } from "../schema.ts";

// message_states (schema.ts) is written by the statements that write `messages`, as CTEs of
// one statement: no round trip more, and no trigger (a PL/pgSQL call a row gave the saving
// back, docs/performance-storage.md "Status moves made HOT (stop 33)").

const STATE_COLUMNS = Object.entries(getTableColumns(messageStates));
/** The message fields the narrow row copies (all but its key). */
const STATE_KEYS = new Set(STATE_COLUMNS.map(([key]) => key).filter((key) => key !== "id"));
const NAMES = STATE_COLUMNS.map(([, column]) => `"${column.name}"`).join(", ");
const SET_FROM_MESSAGE = STATE_COLUMNS.filter(([key]) => key !== "id")
	.map(([, column]) => `"${column.name}" = "m"."${column.name}"`)
	.join(", ");

/** Whether a patch moves a column of the narrow row. */
export function movesState(patch: object): boolean {
	return Object.entries(patch).some(([key, value]) => value !== undefined && STATE_KEYS.has(key));
}

/** A `messages` insert (without RETURNING) as the CTE "m", and the narrow row's insert from it as "s". */
export function insertingState(insertMessage: string): string {
	return `"m" as (${insertMessage} returning ${NAMES}), "s" as (insert into "message_states" (${NAMES}) select ${NAMES} from "m")`;
}

/** The narrow row's update from the CTE "m" (a `messages` update returning its columns), as the CTE "s". */
export const UPDATING_STATE = `"s" as (update "message_states" set ${SET_FROM_MESSAGE} from "m" where "message_states"."id" = "m"."id")`;

/** A `messages` insert (without RETURNING) that also inserts the message's narrow row; `tail` ends the statement. */
export function withState(insertMessage: string, tail = ""): string {
	return `with "m" as (${insertMessage} returning ${NAMES}) insert into "message_states" (${NAMES}) select ${NAMES} from "m"${tail}`;
}

/**
 * A `messages` UPDATE … RETURNING that, when the patch moves a column of the narrow row, also
 * copies those columns of each row it updated there, returning what the update returns. A
 * patch that moves none of them is the update alone.
 */
export function movingState(updateMessage: string, patch: object): string {
	if (!movesState(patch)) return updateMessage;
	return `with "m" as (${updateMessage}), ${UPDATING_STATE} select * from "m"`;
}
