import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

const T0 = new Date("2026-01-01T00:00:00.000Z");

it("two connections to one file never claim the same delivery nor exceed the per-endpoint cap", async () => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-claims-"));
	const url = join(dir, "db.sqlite");
	const a = createSqliteStore({ url });
	const b = createSqliteStore({ url });
	try {
		for (const id of ["wh_000001", "wh_000002"]) {
			await a.webhookEndpoints.create({
				id,
				accountId: "acc_000001",
				tenantId: "tnt_000001",
				url: "https://hooks.example.com/",
				events: ["*"],
				active: true,
				accountEvents: false,
				secretSealed: "x",
				failingSince: null,
				disabledReason: null,
				createdAt: T0,
				updatedAt: T0,
			});
		}
		for (let i = 1; i <= 40; i++) {
			await a.webhookDeliveries.create({
				id: `whd_${String(i).padStart(6, "0")}`,
				accountId: "acc_000001",
				tenantId: "tnt_000001",
				endpointId: i % 2 ? "wh_000001" : "wh_000002",
				eventId: `evt_${i}`,
				eventKind: "message.sent",
				orderingKey: null,
				body: "{}",
				status: "pending",
				attempts: 0,
				nextAttemptAt: T0,
				lastAttemptAt: null,
				lastResponseStatus: null,
				lastError: null,
				lockedBy: null,
				lockedUntil: null,
				createdAt: T0,
				updatedAt: T0,
			});
		}
		const claims = Array.from({ length: 20 }, (_, i) =>
			(i % 2 ? a : b).webhookDeliveries.claimDue({
				limit: 3,
				perEndpointLimit: 5,
				lockedBy: `w${i}`,
				now: T0,
				lockedUntil: new Date(T0.getTime() + 60_000),
			}),
		);
		const claimed = (await Promise.all(claims)).flat();
		expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length);
		expect(claimed.filter((d) => d.endpointId === "wh_000001")).toHaveLength(5);
		expect(claimed.filter((d) => d.endpointId === "wh_000002")).toHaveLength(5);
	} finally {
		await a.close();
		await b.close();
		rmSync(dir, { recursive: true, force: true });
	}
});
