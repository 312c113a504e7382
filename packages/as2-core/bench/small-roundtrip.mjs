// (a) 10 KB EDI, sha256 + aes256 + zlib, sync signed MDN built and verified: round trips per
// second on one core, against the ceiling of three RSA-2048 private-key operations.
import { sign as rsaSign } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
	buildMdn,
	collect,
	importPrivateKey,
	matchMdn,
	pack,
	parseCertificates,
	parseMdn,
	unpack,
} from "../dist/index.js";
import { fmt, summary } from "./stats.mjs";

const dir = process.argv[2];
const load = (name) => ({
	privateKey: importPrivateKey(readFileSync(join(dir, `${name}.key`), "latin1")),
	certificate: parseCertificates(readFileSync(join(dir, `${name}.crt`)))[0],
});
const alice = load("alice");
const bob = load("bob");
const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const payload = new TextEncoder()
	.encode(`ISA*00*          *00*          *ZZ*ALICE*ZZ*BOB~\n${segment.repeat(Math.ceil(10240 / segment.length))}`)
	.subarray(0, 10240);

async function roundTrip() {
	const message = await pack({
		payload,
		contentType: "application/edi-x12",
		from: "ALICE",
		to: "BOB",
		sign: { ...alice, digest: "sha256" },
		encrypt: { certificates: [bob.certificate], algorithm: "aes256" },
		compress: "before-sign",
		mdn: { mode: "sync", signed: ["sha256"] },
	});
	const body = await collect(message.body.open());
	const received = await unpack({
		headers: message.headers,
		body,
		identities: [bob],
		partnerCertificates: [alice.certificate],
	});
	const got = await collect(received.payload);
	if (got.byteLength !== payload.byteLength) throw new Error("payload mismatch");
	const { mic } = await received.complete();
	const mdn = buildMdn({
		original: {
			messageId: received.messageId,
			from: received.from,
			to: received.to,
			mdnRequest: received.mdnRequest,
			mic,
		},
		disposition: { type: "processed" },
		sign: bob,
	});
	const parsed = await parseMdn({ headers: mdn.headers, body: mdn.body, partnerCertificates: [bob.certificate] });
	if (!matchMdn(parsed, { messageId: message.messageId, mic: await message.mic() }).delivered)
		throw new Error("MDN not matched");
}

function rsaCeiling(ms) {
	const data = new Uint8Array(32);
	let ops = 0;
	const end = performance.now() + ms;
	while (performance.now() < end) {
		rsaSign("sha256", data, alice.privateKey);
		ops++;
	}
	return ops / (ms / 1000) / 3;
}

for (let i = 0; i < 200; i++) await roundTrip();
const rates = [];
const ceilings = [];
for (let run = 0; run < 5; run++) {
	ceilings.push(rsaCeiling(1000));
	const n = 1500;
	const t0 = performance.now();
	for (let i = 0; i < n; i++) await roundTrip();
	rates.push(n / ((performance.now() - t0) / 1000));
}
const r = summary(rates);
const c = summary(ceilings);
console.log(`(a) small round trip (10 KB, sha256 + aes256 + zlib, signed MDN built and verified), one core`);
console.log(
	`    as2kit:          median ${fmt(r.median, 0)}/s  (min ${fmt(r.min, 0)}, max ${fmt(r.max, 0)}, noise ${fmt(r.noisePct)}%)  target ≥ 600/s`,
);
console.log(
	`    RSA-2048 ceiling: median ${fmt(c.median, 0)}/s (three private-key operations per round trip; noise ${fmt(c.noisePct)}%)`,
);
console.log(`    ratio to ceiling: ${fmt(r.median / c.median, 2)}`);
