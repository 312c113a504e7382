// The PostgreSQL the storage-pg benches run against, and what it costs: PG_TEST_URL, or a
// throwaway cluster (test/pg/cluster.mjs) started here and stopped by `stop`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";

/** `{ url, postgresCpuUs, stop }`: the database, its processes' CPU so far, and its end. */
export async function benchDatabase() {
	let cluster = null;
	let url = process.env.PG_TEST_URL ?? null;
	if (!url) {
		const bin = findPostgresBin();
		if (!bin) throw new Error("PostgreSQL is not installed (or set PG_TEST_URL)");
		cluster = await startCluster(bin);
		url = cluster.url;
	}
	return {
		url,
		/** CPU microseconds of the cluster's processes (0 for a server of PG_TEST_URL: not visible). */
		postgresCpuUs: () => (cluster ? clusterCpuUs(cluster.dataDir) : 0),
		stop: () => cluster?.stop(),
	};
}

function clusterCpuUs(dataDir) {
	const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
	let ticks = 0;
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
			if (Number(entry) === postmaster || Number(fields[1]) === postmaster)
				ticks += Number(fields[11]) + Number(fields[12]);
		} catch {
			// The process ended between the listing and the read.
		}
	}
	return ticks * 10_000;
}

/** The attempt record of a message sent once and answered (the outcome's transaction writes it). */
export function sentAttempt(messageId, at) {
	return {
		messageId,
		number: 1,
		tenantId: "tnt_bench",
		direction: "outbound",
		startedAt: at,
		finishedAt: at,
		url: "https://127.0.0.1/as2",
		httpStatus: 200,
		bytesSent: 10_240,
		bytesReceived: 1_024,
		outcome: "succeeded",
		errorCode: null,
		errorMessage: null,
		tlsVersion: "TLSv1.3",
		peerCertificateSha256: null,
		phases: { sendMs: 1, waitMs: 20 },
		request: null,
		response: null,
		mdn: null,
		wireExpiresAt: null,
	};
}

/** An event of a message's path (`message.queued`, …) as the service records it, for the benches' account. */
export function messageEvent(kind, id = "msg_000001") {
	return {
		accountId: "acc_bench",
		tenantId: "tnt_bench",
		kind,
		data: { id, status: "queued" },
		environment: "live",
		createdAt: new Date(),
	};
}
