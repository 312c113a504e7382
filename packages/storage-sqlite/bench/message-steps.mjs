// The storage side of one outbound message, step by step, through the port (As2Store): what
// the server's submit, worker and transition code ask of the store for each message, on
// tables that already hold `BENCH_ROWS` messages. Shared by both adapters' benches
// (storage-sqlite/bench/run.mjs, storage-pg/bench/run.mjs): the same calls, so the figures compare.
//
// Per step: wall and CPU microseconds per message (this process's CPU: the adapter's own work,
// driver included; PostgreSQL's server CPU is reported by the caller when it can see it).

const TENANT = "tnt_bench";
const ACCOUNT = "acc_bench";
const PARTNERS = ["prt_a", "prt_b", "prt_c", "prt_d"];

/** A message as submit.ts writes it: every column set, most of them as a real one has them. */
export function outboundMessage(id, at, n) {
	return {
		id,
		accountId: ACCOUNT,
		tenantId: TENANT,
		environment: n % 10 === 0 ? "test" : "live",
		direction: n % 3 === 0 ? "inbound" : "outbound",
		messageId: `<${id}.${n}@bench.example>`,
		partnerId: PARTNERS[n % PARTNERS.length],
		partnerName: "Bench partner",
		partnerAs2Id: "BENCHPARTNER",
		partnerUrl: "https://partner.example/as2",
		status: "queued",
		fromAs2Id: "BENCHSELF",
		toAs2Id: "BENCHPARTNER",
		subject: `Purchase order ${n}`,
		contentType: n % 2 ? "application/edi-x12" : "application/edifact",
		filename: null,
		bytes: 10240,
		compressed: true,
		encrypted: true,
		signed: true,
		mdnMode: "sync",
		mdnStatus: "pending",
		mdnData: null,
		rejectedMdns: [],
		mic: null,
		priority: "normal",
		headers: { "content-type": "application/edi-x12" },
		payloadKey: `payloads/${id}`,
		scheduledAt: null,
		attempts: 0,
		lastAttemptAt: null,
		sentAt: null,
		deliveredAt: null,
		failedAt: null,
		mdnDeadline: null,
		errorCode: null,
		errorMessage: null,
		transmissionTimeMs: null,
		details: { payload_sha256: "0".repeat(64) },
		createdAt: at,
		updatedAt: at,
	};
}

const event = (kind, id, at) => ({
	id,
	accountId: ACCOUNT,
	tenantId: TENANT,
	kind,
	environment: "live",
	data: { id: `msg_${kind}`, status: kind },
	createdAt: at,
});

/** Fills the tables with `rows` messages (each with its queued event), in batches. */
export async function prefill(store, rows, batch = 2000) {
	let n = 0;
	const base = Date.now() - rows * 10;
	while (n < rows) {
		await store.transaction(async (tx) => {
			for (let i = 0; i < batch && n < rows; i++, n++) {
				const at = new Date(base + n * 10);
				await tx.messages.create(outboundMessage(`msg_fill${n}`, at, n));
				await tx.events.append(event("message.queued", `evt_fill${n}`, at));
			}
		});
	}
}

/** The port calls of one message's life, as the server makes them. */
export const steps = {
	/** submit.ts: the message under a new id, its event (events.ts: recordEvent) and its send job, one transaction. */
	async submit(store, n) {
		const at = new Date();
		await store.transaction(async (tx) => {
			// Unique Message-IDs across runs on one store: an inbound one may be stored once.
			const { id: _, ...message } = outboundMessage(`new-${at.getTime()}-${n}`, at, n);
			const id = await tx.messages.createNew(message);
			await appendEvent(tx, "message.queued", at);
			await tx.jobs.enqueue({ kind: "bench.send", payload: { messageId: id }, runAt: at }, at);
		});
	},
	/** worker.ts: claim one due job, read its message. */
	async claim(store, _n, state) {
		const [job] = await store.jobs.claim({
			kinds: ["bench.send"],
			limit: 1,
			workerId: "w1",
			leaseMs: 60_000,
			now: new Date(),
		});
		state.jobs.push(job);
		state.messages.push(await store.messages.getById(job.payload.messageId));
	},
	/** message-transitions.ts: queued → processing with its event. */
	async processing(store, _n, state, i) {
		await transition(store, state.messages[i], ["queued"], { status: "processing" }, "message.processing");
	},
	/** send.ts: processing → delivered with the MDN, its event and the job's completion, one transaction. */
	async delivered(store, _n, state, i) {
		const message = state.messages[i];
		const at = new Date();
		await transition(
			store,
			message,
			["processing"],
			{
				status: "delivered",
				mdnStatus: "received",
				sentAt: at,
				deliveredAt: at,
				attempts: 1,
				lastAttemptAt: at,
				mic: "abc, sha-256",
				transmissionTimeMs: 12,
			},
			"message.delivered",
			(tx) => tx.jobs.complete(state.jobs[i].id, "w1"),
		);
	},
};

async function transition(store, message, from, patch, kind, also) {
	const at = new Date();
	await store.transaction(async (tx) => {
		const moved = await tx.messages.transition(message.id, from, { ...patch, updatedAt: at });
		if (!moved) throw new Error(`${message.id} did not move from ${from}`);
		await also?.(tx);
		await appendEvent(tx, kind, at);
	});
}

/** events.ts: recordEvent, for an account without webhook endpoints. */
function appendEvent(tx, kind, at) {
	const { id: _, ...fields } = event(kind, "", at);
	return tx.events.appendNewWithFanOut(fields, { kind: "bench.fan_out", runAt: at });
}

/**
 * Runs each step for `count` messages (step after step, so each is timed alone) and returns
 * wall and CPU µs per message for each, plus `afterStep(name)` figures (e.g. WAL pages) when given;
 * with `group` > 1, that many messages' steps share one transaction.
 */
export async function runSteps(store, count, { afterStep, beforeStep, group = 1 } = {}) {
	const state = { jobs: [], messages: [] };
	const results = {};
	for (const [name, step] of Object.entries(steps)) {
		await beforeStep?.(name);
		const cpu0 = process.cpuUsage();
		const wall0 = performance.now();
		if (group === 1) for (let i = 0; i < count; i++) await step(store, i, state, i);
		else {
			// `group` messages' transactions in one physical transaction (they join it): what group
			// commit could save at most, savepoints and the wait for the group left out.
			for (let i = 0; i < count; ) {
				await store.transaction(async (tx) => {
					for (const end = Math.min(count, i + group); i < end; i++) await step(tx, i, state, i);
				});
			}
		}
		const wall = performance.now() - wall0;
		const cpu = process.cpuUsage(cpu0);
		results[name] = {
			wallUs: (wall * 1000) / count,
			cpuUs: (cpu.user + cpu.system) / count,
			// Kernel time: on a VM, mostly waking the other end of a socket (a round trip's cost).
			sysUs: cpu.system / count,
			...(afterStep ? await afterStep(name, count) : {}),
		};
	}
	return results;
}

/** Median, min, max and noise ((max − min) / median) of numbers. */
export function summary(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const median = sorted[Math.floor(sorted.length / 2)];
	return { median, min: sorted[0], max: sorted.at(-1), noisePct: ((sorted.at(-1) - sorted[0]) / median) * 100 };
}

/** Prints each step's figures as medians over runs. */
export function report(title, runs) {
	console.log(title);
	let total = 0;
	for (const name of Object.keys(runs[0])) {
		const figures = Object.keys(runs[0][name]);
		const cells = figures.map((figure) => {
			const s = summary(runs.map((r) => r[name][figure]));
			if (figure === "cpuUs") total += s.median;
			return `${figure} ${s.median.toFixed(1)} (±${(s.noisePct / 2).toFixed(0)}%)`;
		});
		console.log(`    ${name.padEnd(11)} ${cells.join("  ")}`);
	}
	console.log(`    ${"total".padEnd(11)} cpuUs ${total.toFixed(1)} per message`);
}

/**
 * The two builds an A/B bench compares: BENCH_STORE_MODULE_A and BENCH_STORE_MODULE_B, each
 * this checkout's build when unset (`npm run build` first).
 */
export function abBuilds() {
	const thisBuild = new URL("../dist/index.js", import.meta.url).href;
	return {
		A: process.env.BENCH_STORE_MODULE_A ?? thisBuild,
		B: process.env.BENCH_STORE_MODULE_B ?? thisBuild,
	};
}

/** `count` queued outbound messages made in one transaction, named `${prefix}-${n}` from `from`: their ids. */
export async function queuedMessages(store, count, prefix, from) {
	const ids = [];
	await store.transaction(async (tx) => {
		for (let i = 0; i < count; i++) {
			const { id: _, ...message } = outboundMessage(`${prefix}-${from + i}`, new Date(), from + i);
			ids.push(await tx.messages.createNew(message));
		}
	});
	return ids;
}
