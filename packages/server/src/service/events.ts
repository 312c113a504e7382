import type { As2Store, Environment, Json } from "@as2kit/core/store";
import { formatInstant } from "./views/instant.ts";

export interface NewEvent {
	kind: string;
	accountId: string;
	tenantId: string | null;
	environment: Environment;
	data: { [key: string]: Json };
}

/**
 * Writes an event to the outbox. Call it with the transaction's store, in the transaction
 * of the change it reports, so that the change and its event commit together.
 */
export async function recordEvent(tx: As2Store, event: NewEvent, now: Date): Promise<string> {
	const id = await tx.ids.next("evt_");
	await tx.events.append({ id, ...event, createdAt: now });
	return id;
}

/** The envelope of a webhook delivery (interface spec, Events: Envelope). */
export function eventEnvelope(kind: string, data: { [key: string]: Json }, at: Date) {
	return { event: kind, data, timestamp: formatInstant(at), api_version: "v1" };
}
