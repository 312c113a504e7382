import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";

const BUILT = resolve(import.meta.dirname, "../dist/index.js");

// Inserting a message inside a transaction touches the table, its list indexes and the search
// index: the statement journal outgrows SQLite's 64 KiB in-memory spill limit. With temporary
// storage on files, that is a file created and unlinked per message; on ext4 without a
// journal, the unlinked inodes also slow every later create of their block group for minutes
// (bench/lib.mjs). SQLite reads SQLITE_TMPDIR once per process, so the store runs in a child
// process whose temporary directory this test watches.
it("writes a message without creating a temporary file", async () => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-temp-files-"));
	const sqliteTmp = join(dir, "tmp");
	mkdirSync(sqliteTmp);
	const created: string[] = [];
	let sentinelSeen!: () => void;
	const sentinel = new Promise<void>((resolve) => {
		sentinelSeen = resolve;
	});
	const watcher = watch(sqliteTmp, (_event, name) => {
		if (name === "sentinel") sentinelSeen();
		else created.push(String(name));
	});
	try {
		const script = `
			import { createSqliteStore } from ${JSON.stringify(BUILT)};
			const store = createSqliteStore({ url: ${JSON.stringify(join(dir, "db.sqlite"))} });
			const at = new Date("2026-01-01T00:00:00.000Z");
			const message = (id) => ({
				id, accountId: "acc_000001", tenantId: "tnt_000001", environment: "live", direction: "outbound",
				messageId: id + "@as2kit.example", partnerId: "prt_000001", partnerName: "Partner",
				partnerAs2Id: "PARTNER", partnerUrl: "https://partner.example/as2", status: "queued",
				fromAs2Id: "ME", toAs2Id: "PARTNER", subject: "Order " + id, contentType: "application/edi-x12",
				filename: null, bytes: 100, compressed: false, encrypted: true, signed: true, mdnMode: "sync",
				mdnStatus: "pending", mdnData: null, rejectedMdns: [], mic: null, priority: "normal", headers: {},
				payloadKey: "payloads/" + id, scheduledAt: null, attempts: 0, lastAttemptAt: null, sentAt: null,
				deliveredAt: null, failedAt: null, mdnDeadline: null, errorCode: null, errorMessage: null,
				transmissionTimeMs: null, details: {}, createdAt: at, updatedAt: at,
			});
			for (let i = 0; i < 20; i++) {
				await store.transaction(async (tx) => {
					await tx.messages.create(message("msg_a" + i));
					await tx.messages.create(message("msg_b" + i));
				});
			}
			await store.close();
		`;
		const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			env: { ...process.env, SQLITE_TMPDIR: sqliteTmp },
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		// inotify reports events in order: once the sentinel made after the child exited is
		// reported, so is every file the child created.
		writeFileSync(join(sqliteTmp, "sentinel"), "");
		await sentinel;
		expect(created).toEqual([]);
	} finally {
		watcher.close();
		rmSync(dir, { recursive: true, force: true });
	}
});
