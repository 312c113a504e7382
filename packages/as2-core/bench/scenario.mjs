// The message of the server's throughput benchmark (issue #20), as the protocol core sees it:
// 10 KB EDI, sha256 + aes256 + zlib before signing, signed sync MDN (sha256). Shared by
// `per-message.mjs` (CPU per message), `per-message-counts.mjs` (work counted per message) and
// `small-roundtrip.mjs` (round trips per second against the RSA ceiling).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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

/**
 * Runs `body(keyDir)` with alice.{key,crt} and bob.{key,crt} (RSA-2048): from `given`, or made
 * with openssl in a temporary directory that is removed afterwards.
 */
export async function withKeys(given, body) {
	const dir = given ?? mkdtempSync(join(tmpdir(), "as2kit-per-message-"));
	try {
		if (!given) {
			for (const name of ["alice", "bob"]) {
				execFileSync(
					"openssl",
					["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, `${name}.key`)].concat([
						"-out",
						join(dir, `${name}.crt`),
						"-subj",
						`/CN=${name}`,
						"-days",
						"2",
					]),
					{ stdio: "ignore" },
				);
			}
		}
		return await body(dir);
	} finally {
		if (!given) rmSync(dir, { recursive: true, force: true });
	}
}

export function scenario(dir) {
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
	// Streamed, as the server gives pack() a payload file: not a source in memory.
	const payloadSource = {
		size: payload.byteLength,
		async *open() {
			yield payload;
		},
	};

	/** The sender's first half: the message built and its body read through, the MIC taken. */
	async function send() {
		const message = await pack({
			payload: payloadSource,
			contentType: "application/edi-x12",
			from: "ALICE",
			to: "BOB",
			sign: { ...alice, digest: "sha256" },
			encrypt: { certificates: [bob.certificate], algorithm: "aes256" },
			compress: "before-sign",
			mdn: { mode: "sync", signed: ["sha256"] },
		});
		const body = await collect(message.body.open());
		return { message, body, mic: await message.mic(), alternatives: await message.alternativeMics() };
	}

	/** The receiver: the body read, the payload taken, the signed MDN built. */
	async function receive({ message, body }) {
		const received = await unpack({
			headers: message.headers,
			body,
			identities: [bob],
			partnerCertificates: [alice.certificate],
		});
		const got = await collect(received.payload);
		if (got.byteLength !== payload.byteLength) throw new Error("payload mismatch");
		const { mic } = await received.complete();
		return buildMdn({
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
	}

	/** The sender's second half: the MDN read, verified and matched. */
	async function readReceipt(sent, mdn) {
		const parsed = await parseMdn({ headers: mdn.headers, body: mdn.body, partnerCertificates: [bob.certificate] });
		if (!matchMdn(parsed, { messageId: sent.message.messageId, mic: sent.mic }).delivered) {
			throw new Error("MDN not matched");
		}
	}

	return { alice, bob, send, receive, readReceipt };
}
