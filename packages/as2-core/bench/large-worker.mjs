// One side of benchmark (b) in its own process, so its peak RSS is its own.
import { createReadStream, createWriteStream, readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { importPrivateKey, MimeHeaders, pack, parseCertificates, unpack } from "../dist/index.js";

const [mode, dir, input, output, headersPath] = process.argv.slice(2);
const load = (name) => ({
	privateKey: importPrivateKey(readFileSync(join(dir, `${name}.key`), "latin1")),
	certificate: parseCertificates(readFileSync(join(dir, `${name}.crt`)))[0],
});
const alice = load("alice");
const bob = load("bob");
const file = (path) => ({
	size: statSync(path).size,
	open: () => createReadStream(path, { highWaterMark: 256 * 1024 }),
});
const t0 = performance.now();
let bytes = 0;
if (mode === "build") {
	const message = await pack({
		payload: file(input),
		contentType: "application/octet-stream",
		from: "ALICE",
		to: "BOB",
		sign: { ...alice, digest: "sha256" },
		encrypt: { certificates: [bob.certificate], algorithm: "aes256" },
	});
	await pipeline(Readable.from(message.body.open()), createWriteStream(output));
	await writeFile(headersPath ?? `${output}.headers`, JSON.stringify(message.headers.entries()));
	bytes = message.body.size;
} else {
	const headers = new MimeHeaders(JSON.parse(readFileSync(output, "utf8")));
	const message = await unpack({
		headers,
		body: createReadStream(input, { highWaterMark: 256 * 1024 }),
		identities: [bob],
		partnerCertificates: [alice.certificate],
	});
	for await (const chunk of message.payload) bytes += chunk.byteLength;
	await message.complete();
}
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ seconds, bytes, maxRss: process.resourceUsage().maxRSS / 1024 }));
