// CPU per message of the protocol work on each side of the server's throughput benchmark
// (issue #20): 10 KB EDI, sha256 + aes256 + zlib before signing, signed sync MDN (sha256).
// Sender: pack from a streamed payload (as the server reads it from its blob store), read the
// body through, take the MIC, parse and verify the MDN. Receiver: unpack a buffered body,
// read the payload, complete (MIC), build the signed MDN. Each side is set against its
// floor, the RSA operations it cannot avoid, timed alone in the same process:
// sender = sign + key transport (public) + MDN verification (public); receiver = key
// transport (private) + MDN signature + signature verification (public).
//
//   npm run build -w @as2kit/core && node packages/as2-core/bench/per-message.mjs [keydir] [--json]
//
// keydir holds alice.{key,crt} and bob.{key,crt} (RSA-2048, as `bench/run.mjs` makes them);
// without it a pair is made with openssl in a temporary directory. CPU is process.cpuUsage(),
// so the figure does not depend on how long the process waited for a core.
// PER_MESSAGE_COUNT, PER_MESSAGE_RUNS: messages per run (400) and runs (5).
import { constants, privateDecrypt, publicDecrypt, publicEncrypt, randomBytes, sign } from "node:crypto";
import { publicKeyOfCertificate } from "../dist/index.js";
import { scenario, withKeys } from "./scenario.mjs";
import { fmt, summary } from "./stats.mjs";

const args = process.argv.slice(2);
const json = args.includes("--json");
const MESSAGES = Number(process.env.PER_MESSAGE_COUNT ?? 400);
const RUNS = Number(process.env.PER_MESSAGE_RUNS ?? 5);
// A server does other work between two steps of a message (HTTP, SQL, files): with
// PER_MESSAGE_EVICT_MIB=8, that many MiB are touched between steps, outside the timed parts,
// so each step starts with cold caches as it does there. Off by default (a hot loop).
const EVICT_BYTES = Number(process.env.PER_MESSAGE_EVICT_MIB ?? 0) * 2 ** 20;
const evicting = new Uint8Array(EVICT_BYTES);
function evictCaches() {
	for (let i = 0; i < EVICT_BYTES; i += 64) evicting[i]++;
}

await withKeys(
	args.find((a) => !a.startsWith("--")),
	async (dir) => main(dir),
);

async function main(dir) {
	const { alice, bob, send, receive, readReceipt } = scenario(dir);
	const bobPublic = publicKeyOfCertificate(bob.certificate);
	const alicePublic = publicKeyOfCertificate(alice.certificate);
	const cek = randomBytes(32);
	const wrapped = publicEncrypt({ key: bobPublic, padding: constants.RSA_PKCS1_PADDING }, cek);
	const digestInfo = randomBytes(51);
	const signature = sign("sha256", digestInfo, alice.privateKey);
	const floors = {
		sender: () => {
			sign("sha256", digestInfo, alice.privateKey);
			publicEncrypt({ key: bobPublic, padding: constants.RSA_PKCS1_PADDING }, cek);
			publicDecrypt({ key: alicePublic, padding: constants.RSA_PKCS1_PADDING }, signature);
		},
		receiver: () => {
			privateDecrypt({ key: bob.privateKey, padding: constants.RSA_NO_PADDING }, wrapped);
			sign("sha256", digestInfo, bob.privateKey);
			publicDecrypt({ key: alicePublic, padding: constants.RSA_PKCS1_PADDING }, signature);
		},
	};

	const cpu = () => {
		const { user, system } = process.cpuUsage();
		return user + system;
	};
	const rows = { sender: [], receiver: [], senderFloor: [], receiverFloor: [] };
	for (let i = 0; i < 100; i++) await readReceipt(...(await pair()));
	async function pair() {
		const sent = await send();
		return [sent, await receive(sent)];
	}
	for (let run = 0; run < RUNS; run++) {
		globalThis.gc?.();
		let sendCpu = 0;
		let receiveCpu = 0;
		for (let i = 0; i < MESSAGES; i++) {
			evictCaches();
			const t0 = cpu();
			const sent = await send();
			const t1 = cpu();
			evictCaches();
			const t2 = cpu();
			const mdn = await receive(sent);
			const t3 = cpu();
			evictCaches();
			const t4 = cpu();
			await readReceipt(sent, mdn);
			sendCpu += t1 - t0 + (cpu() - t4);
			receiveCpu += t3 - t2;
		}
		rows.sender.push(sendCpu / MESSAGES);
		rows.receiver.push(receiveCpu / MESSAGES);
		for (const side of ["sender", "receiver"]) {
			const t0 = cpu();
			for (let i = 0; i < MESSAGES; i++) floors[side]();
			rows[`${side}Floor`].push((cpu() - t0) / MESSAGES);
		}
	}
	if (json) {
		console.log(JSON.stringify(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, summary(v)]))));
		return;
	}
	console.log(`CPU per message of the protocol work (${RUNS} runs of ${MESSAGES}; µs, median (min–max))`);
	for (const side of ["sender", "receiver"]) {
		const all = summary(rows[side]);
		const floor = summary(rows[`${side}Floor`]);
		const ours = summary(rows[side].map((v, i) => v - rows[`${side}Floor`][i]));
		console.log(
			`  ${side.padEnd(8)}  ${fmt(all.median, 0)} (${fmt(all.min, 0)}–${fmt(all.max, 0)})` +
				`  RSA floor ${fmt(floor.median, 0)}  above the floor ${fmt(ours.median, 0)} (${fmt(ours.min, 0)}–${fmt(ours.max, 0)})`,
		);
	}
}
