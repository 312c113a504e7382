import type { As2Store, Environment, EventFanOut, Json, StepEvent } from "@as2kit/core/store";
import { formatInstant } from "./views/instant.ts";
import { FAN_OUT_JOB } from "./webhooks/job-kinds.ts";
import { withFields } from "./with-fields.ts";

export interface NewEvent {
	kind: string;
	accountId: string;
	tenantId: string | null;
	environment: Environment;
	data: { [key: string]: Json };
}

/**
 * Writes an event to the outbox. Call it with the transaction's store, in the transaction
 * of the change it reports, so that the change and its event commit together. The event's
 * webhook fan-out is a job written in the same transaction: a committed event is always
 * delivered (jobs are durable, leased and retried), a rolled-back one never is.
 *
 * The job is written only when the account has an active endpoint: the spec sends an event
 * to each endpoint that is active (interface spec, Webhooks), so an event of an account with
 * none has no recipient, and an endpoint created later does not receive it. Most accounts
 * have no webhooks; this spares every one of their events a job. The store checks as it writes
 * the event (`appendNewWithFanOut`, one statement on PostgreSQL), so an endpoint created on any
 * instance gets the very next event.
 */
export async function recordEvent(tx: As2Store, event: NewEvent, now: Date): Promise<string> {
	const written = await tx.events.appendNewWithFanOut(stepEvent(event, now), eventFanOut(now));
	return written.id;
}

/** An event as a step of the store writes it (`MessageSteps`), with its fan-out as recordEvent's. */
export function stepEvent(event: NewEvent, now: Date): StepEvent {
	return withFields(event, { createdAt: now });
}

/** The fan-out job of an event written at `now` (recordEvent). */
export function eventFanOut(now: Date): EventFanOut {
	return { kind: FAN_OUT_JOB, runAt: now };
}

/** The envelope of a webhook delivery (interface spec, Events: Envelope). */
export function eventEnvelope(kind: string, data: { [key: string]: Json }, at: Date) {
	return { event: kind, data, timestamp: formatInstant(at), api_version: "v1" };
}
