import type { As2Store } from "@as2kit/core/store";
import { afterAll, expect, it } from "vitest";
import { message } from "../../../test/storage/suites/messages.ts";
import { createSqliteStore } from "./create-store.ts";

/**
 * The records a write returns are built without RETURNING (a job from the values given, a
 * message read back after its update: repositories/jobs.ts, messages.ts): each must equal
 * what a read of the same row returns, every column mapped as the read maps it.
 */
const T0 = new Date("2026-01-01T00:00:00.000Z");
const store: As2Store = createSqliteStore({ url: ":memory:", searchIndexing: false });

afterAll(() => store.close());

it("a job enqueued, or handed to a worker as it is written, is returned as a read returns it", async () => {
	const job = {
		kind: "send",
		key: "send:msg_1",
		payload: { messageId: "msg_1", list: [1, "x"] },
		runAt: T0,
		priority: 5,
	};
	const queued = await store.jobs.enqueue(job, T0);
	const handed = await store.jobs.enqueueClaimed({ ...job, key: null }, T0, {
		workerId: "w1",
		lockedUntil: new Date(T0.getTime() + 60_000),
	});
	expect(queued).toEqual(await store.jobs.get(queued!.id));
	expect(handed).toEqual(await store.jobs.get(handed!.id));
	expect(handed).toMatchObject({ lockedBy: "w1", attempts: 1 });
	expect(await store.jobs.enqueue(job, T0)).toBeNull();
});

it("a message transitioned or updated is returned as a read returns it, and a missed one as null", async () => {
	await store.messages.create(message("msg_000001", { status: "queued", encrypted: true }));
	const moved = await store.messages.transition("msg_000001", ["queued"], {
		status: "processing",
		details: { payload_sha256: "ab", steps: ["signed"] },
		updatedAt: new Date(T0.getTime() + 1),
	});
	expect(moved).toEqual(await store.messages.getById("msg_000001"));
	expect(moved).toMatchObject({ status: "processing", details: { steps: ["signed"] }, encrypted: true });
	const updated = await store.messages.update("msg_000001", { mic: "abc, sha-256", sentAt: T0 });
	expect(updated).toEqual(await store.messages.get(updated!.tenantId, "msg_000001"));
	expect(await store.messages.transition("msg_000001", ["queued"], { status: "failed" })).toBeNull();
	expect(await store.messages.update("msg_missing", { mic: "x" })).toBeNull();
});
