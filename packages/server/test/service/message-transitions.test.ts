/**
 * message-transitions.ts: a move with no event and nothing else is one conditional update and
 * runs without a transaction of its own (no BEGIN and COMMIT on PostgreSQL); any other move
 * runs in one, with its events.
 */
import type { As2Store, MessageRecord } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
import { alsoBoth } from "../../src/service/messages/attempts.ts";
import {
	type AlsoInTransaction,
	NO_EVENTS,
	type TransitionDeps,
	transitionMessage,
} from "../../src/service/messages/message-transitions.ts";

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
});
