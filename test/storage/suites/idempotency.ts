import type { IdempotencyRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

const pending = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
	scope: "tnt_000001",
	key: "0b0e6a5e-3a3f-4b8e-9d6c-1c2b3a4d5e6f",
	fingerprint: "fp-1",
	state: "pending",
	responseStatus: null,
	responseBody: null,
	createdAt: T0,
	lockedUntil: at(30),
	expiresAt: at(86_400),
	...overrides,
});

export const idempotencyTests = {
	"idempotency - first begin starts, the next sees it, completion is replayable": async ({ store }) => {
		expect(await store.idempotency.begin(pending(), T0)).toEqual({ outcome: "started", record: pending() });
		const second = await store.idempotency.begin(pending(), at(1));
		expect(second.outcome).toBe("existing");
		await store.idempotency.complete("tnt_000001", pending().key, { status: 201, body: '{"ok":true}' });
		const replay = await store.idempotency.begin(pending({ fingerprint: "fp-2" }), at(2));
		expect(replay).toMatchObject({
			outcome: "existing",
			record: { state: "completed", responseStatus: 201, responseBody: '{"ok":true}', fingerprint: "fp-1" },
		});
	},
	"idempotency - keys are scoped": async ({ store }) => {
		await store.idempotency.begin(pending(), T0);
		expect((await store.idempotency.begin(pending({ scope: "tnt_000002" }), T0)).outcome).toBe("started");
	},
	"idempotency - only one of many concurrent begins starts": async ({ store }) => {
		const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.idempotency.begin(pending(), T0)));
		expect(outcomes.filter((o) => o.outcome === "started")).toHaveLength(1);
	},
	"idempotency - an abandoned pending record is taken over after its lock": async ({ store }) => {
		await store.idempotency.begin(pending(), T0);
		expect((await store.idempotency.begin(pending({ lockedUntil: at(60) }), at(29))).outcome).toBe("existing");
		const taken = await store.idempotency.begin(pending({ lockedUntil: at(90) }), at(31));
		expect(taken).toMatchObject({ outcome: "started", record: { lockedUntil: at(90) } });
		// Not by another request body.
		expect((await store.idempotency.begin(pending({ fingerprint: "fp-2" }), at(200))).outcome).toBe("existing");
	},
	"idempotency - release forgets, expired records are replaced and purged": async ({ store }) => {
		await store.idempotency.begin(pending(), T0);
		await store.idempotency.release("tnt_000001", pending().key);
		expect(await store.idempotency.get("tnt_000001", pending().key)).toBeNull();
		await store.idempotency.begin(pending({ expiresAt: at(10) }), T0);
		await store.idempotency.complete("tnt_000001", pending().key, { status: 201, body: "{}" });
		expect((await store.idempotency.begin(pending({ fingerprint: "fp-2" }), at(11))).outcome).toBe("started");
		await store.idempotency.begin(pending({ key: "other", expiresAt: at(10) }), T0);
		expect(await store.idempotency.purgeExpired(at(11))).toBe(1);
		expect(await store.idempotency.get("tnt_000001", "other")).toBeNull();
		expect(await store.idempotency.get("tnt_000001", pending().key)).not.toBeNull();
	},
} satisfies Record<string, ConformanceTest>;
