/**
 * message-transitions.ts: a move with no event and nothing else is one conditional update and
 * runs without a transaction of its own (no BEGIN and COMMIT on PostgreSQL); any other move
 * runs in one, with its events.
 */
import type { As2Store, MessageRecord } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
import { NO_EVENTS, type TransitionDeps, transitionMessage } from "../../src/service/messages/message-transitions.ts";

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
});
