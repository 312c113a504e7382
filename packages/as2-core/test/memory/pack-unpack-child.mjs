// Child process of memory.test.ts: builds and parses a large generated payload (sign +
// encrypt), streaming the built body straight into the parser, and reports peak RSS growth.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { importPrivateKey, pack, unpack } from "../../dist/index.js";

const [aliceKey, aliceCert, bobKey, bobCert, sizeText] = process.argv.slice(2);
const size = Number(sizeText);
const der = (path) =>
	new Uint8Array(Buffer.from(readFileSync(path, "latin1").replace(/-----[^-]+-----|\s/g, ""), "base64"));
const alice = { privateKey: importPrivateKey(readFileSync(aliceKey, "latin1")), certificate: der(aliceCert) };
const bob = { privateKey: importPrivateKey(readFileSync(bobKey, "latin1")), certificate: der(bobCert) };

const CHUNK = 64 * 1024;
const block = new Uint8Array(CHUNK);
for (let i = 0; i < CHUNK; i++) block[i] = (i * 31 + 7) & 0xff;
const payload = {
	size,
	async *open() {
		for (let sent = 0; sent < size; sent += CHUNK) yield block.subarray(0, Math.min(CHUNK, size - sent));
	},
};
const expected = createHash("sha256");
for await (const chunk of payload.open()) expected.update(chunk);

global.gc?.();
const baseline = process.memoryUsage().rss;
const started = process.hrtime.bigint();
const message = await pack({
	payload,
	contentType: "application/octet-stream",
	from: "ALICE",
	to: "BOB",
	sign: { ...alice, digest: "sha256" },
	encrypt: { certificates: [bob.certificate], algorithm: "aes256" },
});
const received = await unpack({
	headers: message.headers,
	body: message.body.open(),
	identities: [bob],
	partnerCertificates: [alice.certificate],
});
const actual = createHash("sha256");
let bytes = 0;
for await (const chunk of received.payload) {
	actual.update(chunk);
	bytes += chunk.byteLength;
}
const report = await received.complete();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const peak = process.resourceUsage().maxRSS * 1024;
console.log(
	JSON.stringify({
		bytes,
		same: actual.digest("hex") === expected.digest("hex"),
		micMatches: report.mic.value === (await message.mic()).value,
		peakGrowthBytes: peak - baseline,
		seconds,
	}),
);
