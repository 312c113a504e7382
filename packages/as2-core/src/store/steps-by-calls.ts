import { commitWith } from "./commit-with.ts";
import type { JobRecord } from "./jobs.ts";
import type { MessageSteps, StepEvent, StepJob, SubmitStep } from "./message-steps.ts";
import type { As2Store, EventFanOut } from "./store.ts";

/**
 * The store's message steps (As2Store.messageSteps), or the same steps made of the port's
 * separate calls, each in a transaction of its own (a store without them: storage-sqlite,
 * where a transaction's statements cost no round trip).
 */
export function messageSteps(store: As2Store): MessageSteps {
	return store.messageSteps ?? stepsByCalls(store);
}

function stepsByCalls(store: As2Store): MessageSteps {
	return {
		submit: (step) =>
			store.transaction(async (tx) => {
				const id = await tx.messages.createNew(step.message);
				const { events, jobs } = step.withId(id);
				const fannedOut = appendEvents(tx, events, step.fanOut);
				const written = jobs.map((job) => enqueue(tx, job, step.message.createdAt));
				await commitWith(tx, [usage(tx, step), fannedOut, ...written]);
				return { id, job: written.length > 0 ? await written[0]! : null, fanOut: await fannedOut };
			}),
		settle: (step) =>
			store.transaction(async (tx) => {
				const moved = await tx.messages.transition(step.id, step.from, step.patch);
				if (!moved) return { moved: null, jobCompleted: false, fanOut: false };
				const attempt = step.attempt ? tx.messageAttempts.create(step.attempt) : undefined;
				const completed = step.completeJob
					? tx.jobs.complete(step.completeJob.id, step.completeJob.workerId)
					: Promise.resolve(false);
				const fannedOut = appendEvents(tx, step.events, step.fanOut);
				await commitWith(tx, [attempt, completed, fannedOut]);
				return { moved, jobCompleted: await completed, fanOut: await fannedOut };
			}),
	};
}

function usage(tx: As2Store, step: SubmitStep): Promise<unknown> | undefined {
	return step.usage ? tx.usage.incrementMany(step.usage) : undefined;
}

/** The events in order (their ids and `seq` keep it); whether any fanned out. */
async function appendEvents(tx: As2Store, events: readonly StepEvent[], fanOut: EventFanOut): Promise<boolean> {
	const written = events.map((event) => tx.events.appendNewWithFanOut(event, fanOut));
	// Every event's call observed, not only up to the first that fails: on PostgreSQL the calls
	// written behind a failed statement are refused too, and a refusal nobody awaits is an
	// unhandled rejection (the conformance test "message steps - settle whose attempt's number
	// exists …" showed it, a second event refused with "prepared statement … does not exist").
	return (await Promise.all(written)).some((one) => one.fanOut);
}

function enqueue(tx: As2Store, { lease, ...job }: StepJob, now: Date): Promise<JobRecord | null> {
	return lease ? tx.jobs.enqueueClaimed(job, now, lease) : tx.jobs.enqueue(job, now);
}
