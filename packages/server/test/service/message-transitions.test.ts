/**
 * message-transitions.ts: a move with no event and nothing else is one conditional update and
 * runs without a transaction of its own (no BEGIN and COMMIT on PostgreSQL); a move whose
 * writes all carry their data (a send's outcome: its attempt and the job's end) is one step of
 * the store (MessageSteps.settle); any other move runs in a transaction, with its events.
 */
import type { As2Store, MessageAttemptRecord, MessageRecord, SettleStep } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
import { alsoBoth, endingJob } from "../../src/service/messages/attempts.ts";
import {
	type AlsoInTransaction,
	NO_EVENTS,
	type TransitionDeps,
	transitionMessage,
} from "../../src/service/messages/message-transitions.ts";
import { messageEventData } from "../../src/service/views/message-views.ts";

const message = {
	id: "msg_000001",
	status: "queued",
	accountId: "acc_1",
	tenantId: "ten_1",
	details: {},
	headers: {},
	rejectedMdns: [],
	createdAt: new Date(0),
	updatedAt: new Date(0),
} as unknown as MessageRecord;

/** A store that records which way each move came in. */
function recordingStore() {
	const calls: string[] = [];
	const store = {
		messages: {
			transition: async (_id: string, _from: unknown, patch: Partial<MessageRecord>) => {
				calls.push("transition");
				return { ...message, ...patch };
			},
		},
		events: {
			appendNewWithFanOut: async () => {
				calls.push("event");
				return { id: "evt_000001", fanOut: false };
			},
		},
		transaction: async <T>(fn: (tx: As2Store) => Promise<T>) => {
			calls.push("transaction");
			return fn(store as unknown as As2Store);
		},
	};
	const deps = {
		store: store as unknown as As2Store,
		telemetry: { messageSettled: () => {} },
		logger: { warn: () => {} },
	} as unknown as TransitionDeps;
	return { calls, deps };
}

describe("transitionMessage", () => {
	it("moves with NO_EVENTS and nothing else in one statement, outside any transaction", async () => {
		const { calls, deps } = recordingStore();
		const moved = await transitionMessage(deps, message, ["queued"], { status: "processing" }, NO_EVENTS, new Date());
		expect(moved?.status).toBe("processing");
		expect(calls).toEqual(["transition"]);
	});

	it("moves with events, or with more writes, in a transaction", async () => {
		const { calls, deps } = recordingStore();
		await transitionMessage(deps, message, ["queued"], { status: "failed" }, () => ["failed"], new Date());
		await transitionMessage(deps, message, ["queued"], { status: "processing" }, NO_EVENTS, new Date(), async () => {
			calls.push("also");
		});
		expect(calls).toEqual(["transaction", "transition", "event", "transaction", "transition", "also"]);
	});

	it("makes the parts of alsoBoth with its events, in order, all settled before it ends; the first error fails it", async () => {
		const { calls, deps } = recordingStore();
		let releaseSlow: () => void = () => {};
		const slow = new Promise<void>((resolve) => {
			releaseSlow = resolve;
		});
		const part = (name: string, wait?: Promise<void>) => async () => {
			calls.push(`${name} made`);
			await wait;
			calls.push(`${name} settled`);
		};
		const also: AlsoInTransaction = alsoBoth(alsoBoth(part("a"), part("b", slow)), part("c"));
		const moving = transitionMessage(
			deps,
			message,
			["processing"],
			{ status: "sent" },
			() => ["sent"],
			new Date(),
			also,
		);
		await new Promise((resolve) => setImmediate(resolve));
		expect(calls).toContain("event");
		expect(calls).not.toContain("b settled");
		releaseSlow();
		await moving;
		expect(calls.filter((call) => call.endsWith("made"))).toEqual(["a made", "b made", "c made"]);
		expect(calls.at(-1)).toBe("b settled");

		const failing = alsoBoth(async () => {
			throw new Error("first");
		}, part("d"));
		await expect(
			transitionMessage(deps, message, ["processing"], { status: "sent" }, NO_EVENTS, new Date(), failing),
		).rejects.toThrow("first");
		expect(calls).toContain("d settled");
	});

	it("makes an also's parts, not the whole, so that they and the events are waited for together", async () => {
		const { calls, deps } = recordingStore();
		const whole = Object.assign(
			async () => {
				calls.push("whole");
			},
			{ parts: [async () => void calls.push("part")] },
		);
		await transitionMessage(deps, message, ["processing"], { status: "sent" }, () => ["sent"], new Date(), whole);
		expect(calls).toEqual(["transaction", "transition", "part", "event"]);
	});

	it("makes a move whose writes all carry their data one step, its events made from the message with the patch", async () => {
		const { calls, deps } = recordingStore();
		const steps: SettleStep[] = [];
		let ended: boolean | null = null;
		Object.assign(deps.store, {
			messageSteps: {
				settle: async (step: SettleStep) => {
					calls.push("step");
					steps.push(step);
					return { moved: { ...message, ...step.patch }, jobCompleted: true, fanOut: false };
				},
			},
		});
		const attempt = { messageId: message.id, number: 1 } as MessageAttemptRecord;
		const also = alsoBoth(
			Object.assign(async () => {}, { asStep: { attempt } }),
			endingJob(async () => {}, {
				jobId: "7",
				workerId: "w1",
				ended: (completed) => {
					ended = completed;
				},
			}),
		);
		const at = new Date("2026-03-01T09:00:00.000Z");
		const processing = { ...message, status: "processing", attempts: 2, messageId: "abc@x" } as MessageRecord;
		const patch = {
			status: "delivered" as const,
			deliveredAt: at,
			sentAt: at,
			transmissionTimeMs: 12,
			mdnStatus: undefined,
		};
		const moved = await transitionMessage(
			deps,
			processing,
			["processing"],
			patch,
			() => ["sent", "delivered"],
			at,
			also,
		);
		expect(calls).toEqual(["step"]);
		expect(moved?.status).toBe("delivered");
		expect(ended).toBe(true);
		const [step] = steps;
		expect(step).toMatchObject({
			id: message.id,
			from: ["processing"],
			attempt,
			completeJob: { id: "7", workerId: "w1" },
		});
		// The move's own fields (updatedAt, no error) are in the patch the step writes, as in a transaction.
		expect(step!.patch).toMatchObject({ status: "delivered", errorCode: null, errorMessage: null, updatedAt: at });
		// An undefined field of the patch changes nothing, in the row the events are made from too.
		const expected = { ...processing, ...step!.patch, mdnStatus: processing.mdnStatus };
		expect(step!.events.map((event) => [event.kind, event.data, event.createdAt])).toEqual([
			["message.sent", messageEventData.sent(expected), at],
			["message.delivered", messageEventData.delivered(expected), at],
		]);
		expect(step!.events[1]!.data).toMatchObject({ attempts: 2, message_id: "abc@x", status: "delivered" });
	});

	it("moves in a transaction, as ever, on a store without steps (SQLite), though every write carries its data", async () => {
		const { calls, deps } = recordingStore();
		const also = alsoBoth(
			Object.assign(async () => void calls.push("attempt"), { asStep: { attempt: {} as MessageAttemptRecord } }),
			endingJob(async () => void calls.push("end"), { jobId: "7", workerId: "w1", ended: () => {} }),
		);
		await transitionMessage(deps, message, ["processing"], { status: "sent" }, () => ["sent"], new Date(), also);
		expect(calls).toEqual(["transaction", "transition", "attempt", "end", "event"]);
	});

	it("moves in a transaction when a part of its writes has no data for a step", async () => {
		const { calls, deps } = recordingStore();
		Object.assign(deps.store, {
			messageSteps: {
				settle: async () => {
					throw new Error("no step expected");
				},
			},
		});
		const also = alsoBoth(
			Object.assign(async () => void calls.push("attempt"), { asStep: { attempt: {} as MessageAttemptRecord } }),
			endingJob(async () => void calls.push("end"), undefined),
		);
		await transitionMessage(deps, message, ["processing"], { status: "sent" }, () => ["sent"], new Date(), also);
		expect(calls).toEqual(["transaction", "transition", "attempt", "end", "event"]);
	});
});
