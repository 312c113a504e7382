/**
 * as2-core alone: build a signed, encrypted, compressed AS2 message and read it back, then
 * answer it with a signed MDN and check that MDN — no server, no files.
 *
 * Run it from the repository root: `npm start -w examples/pack-and-unpack` (or
 * `npx tsx examples/pack-and-unpack/pack-and-unpack.ts`).
 */
import { buildMdn, collect, generateSelfSigned, matchMdn, pack, parseMdn, unpack, utf8 } from "@as2kit/core";

export async function packAndUnpack(): Promise<{ payload: string; delivered: boolean }> {
	const alice = await generateSelfSigned({ commonName: "alice.example" });
	const bob = await generateSelfSigned({ commonName: "bob.example" });

	// Alice builds the message for Bob.
	const message = await pack({
		payload: utf8("UNA:+.? 'UNB+UNOC:3+ALICE+BOB'UNH+1+ORDERS:D:96A:UN'"),
		contentType: "application/edifact",
		filename: "order.edi",
		from: "ALICE",
		to: "BOB",
		sign: { privateKey: alice.privateKey, certificate: alice.certificate, digest: "sha256" },
		encrypt: { certificates: [bob.certificate], algorithm: "aes256" },
		compress: "before-sign",
		mdn: { mode: "sync", signed: ["sha256"] },
	});
	// message.headers and message.body.open() are what goes over HTTP.

	// Bob reads it.
	const received = await unpack({
		headers: message.headers,
		body: message.body.open(),
		identities: [{ privateKey: bob.privateKey, certificate: bob.certificate }],
		partnerCertificates: [alice.certificate],
	});
	const payload = new TextDecoder().decode(await collect(received.payload));
	const { mic } = await received.complete();

	// Bob answers with a signed MDN; Alice checks it against what she sent.
	const mdn = buildMdn({
		original: {
			messageId: received.messageId,
			from: received.from,
			to: received.to,
			mic,
			...(received.mdnRequest ? { mdnRequest: received.mdnRequest } : {}),
		},
		disposition: { type: "processed" },
		sign: { privateKey: bob.privateKey, certificate: bob.certificate },
	});
	const receipt = await parseMdn({ headers: mdn.headers, body: mdn.body, partnerCertificates: [bob.certificate] });
	const { delivered } = matchMdn(receipt, { messageId: message.messageId, mic: await message.mic() });
	return { payload, delivered };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	console.log(await packAndUnpack());
}
