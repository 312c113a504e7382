/**
 * Issue #17, acceptance: the interop matrix. The built server (`npm start`) against an
 * independent AS2 peer whose crypto is only the OpenSSL CLI (openssl-peer.ts), over real HTTP
 * on loopback, in both directions:
 *
 * - as2kit → peer: a partner per row (sign digest, cipher, `compatibility.key_encryption`, MDN
 *   mode); the peer decrypts and verifies with openssl, computes the MIC itself and answers a
 *   signed MDN, sync or async; as2kit must record the message `delivered` with the MDN verified
 *   and the MIC matched, and the peer must have got the payload byte-exact, in the cipher and
 *   key transport asked.
 * - peer → as2kit: the peer builds each message with `openssl cms -sign/-encrypt` and verifies
 *   the MDN with `openssl cms -verify`, its Received-Content-MIC against its own; as2kit must
 *   record the message `received` with the layers' algorithms, and hand out the payload
 *   byte-exact.
 *
 * Not the cartesian product: a covering set in which every digest, cipher, key transport and
 * message shape appears in each direction with a sync and with an async MDN (checked by the
 * first test), `none` once each way, then the partner deviations of issue #17 reproduced by the
 * peer as those partners behave (research notes as2-anchors §C, §D; partner-bytes.ts), the
 * CMS options partners' toolkits use, and hostile rows (a forged MDN, a stranger's recipient).
 *
 * Every cipher as2kit offers is done by this OpenSSL 3 CLI (AES-GCM as RFC 5083/5084
 * AuthEnvelopedData with `-aes-128-gcm`/`-aes-256-gcm`). Compression is not: Debian's OpenSSL
 * is built without zlib (`openssl cms -compress`: "unsupported compression algorithm"), so the
 * compressed layer's independent peer is the hand-built CompressedData of
 * packages/as2-core/test/interop/openssl-as2.test.ts.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import { EDIFACT_INTERCHANGE } from "../../packages/server/test/helpers/partner-bytes.ts";
import { startPartnerWorld } from "./async-mdn-partners.ts";
import { call } from "./clients.ts";
import type { OpensslDigest } from "./openssl-cli.ts";
import { type OpensslPeer, type PeerMessage, type PeerQuirks, startOpensslPeer } from "./openssl-peer.ts";

type Cipher = "3DES" | "AES128_CBC" | "AES192_CBC" | "AES256_CBC" | "AES128_GCM" | "AES256_GCM";
type KeyTransport = "rsa" | "oaep" | "oaep-sha256" | "oaep-sha384" | "oaep-sha512";
type MdnMode = "sync" | "async" | "none";

const DIGESTS: OpensslDigest[] = ["sha1", "sha256", "sha384", "sha512"];
const CIPHERS: Cipher[] = ["3DES", "AES128_CBC", "AES192_CBC", "AES256_CBC", "AES128_GCM", "AES256_GCM"];
const KEY_TRANSPORTS: KeyTransport[] = ["rsa", "oaep", "oaep-sha256", "oaep-sha384", "oaep-sha512"];
/** `micalg` as partners spell it (RFC 5751 §3.4.3.2 names, and the others of as2-anchors §D5). */
const MICALG_SPELLINGS: Record<OpensslDigest, string[]> = {
	// The first of each: what RFC 5751 §3.4.3.2 names and as2kit writes.
	sha1: ["sha-1", "sha1"],
	sha256: ["sha-256", "SHA256", "sha_256"],
	sha384: ["sha-384"],
	sha512: ["sha-512"],
};

/** The partner setting's cipher as `openssl cms -encrypt` takes it, and as `-cmsout -print` names it. */
const OPENSSL_CIPHER: Record<Cipher, { option: string; printed: string }> = {
	"3DES": { option: "des3", printed: "des-ede3-cbc" },
	AES128_CBC: { option: "aes128", printed: "aes-128-cbc" },
	AES192_CBC: { option: "aes192", printed: "aes-192-cbc" },
	AES256_CBC: { option: "aes256", printed: "aes-256-cbc" },
	// RFC 5084 AuthEnvelopedData: OpenSSL 3 writes and reads it with -aes-128-gcm / -aes-256-gcm.
	AES128_GCM: { option: "aes-128-gcm", printed: "aes-128-gcm" },
	AES256_GCM: { option: "aes-256-gcm", printed: "aes-256-gcm" },
};
/** The cipher as as2kit names it in a message's layers. */
const AS2KIT_CIPHER: Record<Cipher, string> = {
	"3DES": "3des",
	AES128_CBC: "aes128",
	AES192_CBC: "aes192",
	AES256_CBC: "aes256",
	AES128_GCM: "aes128-gcm",
	AES256_GCM: "aes256-gcm",
};
/** The key transport as the peer reads it from the RSAES-OAEP-params (RFC 4055 §4.1; RFC 3560 defaults for `oaep`). */
const PRINTED_KEY_TRANSPORT: Record<KeyTransport, string> = {
	rsa: "rsa",
	oaep: "oaep-sha1/mgf1-sha1",
	"oaep-sha256": "oaep-sha256/mgf1-sha256",
	"oaep-sha384": "oaep-sha384/mgf1-sha384",
	"oaep-sha512": "oaep-sha512/mgf1-sha512",
};

interface Exchange {
	sign?: OpensslDigest;
	encrypt?: { cipher: Cipher; keyTransport: KeyTransport };
	mdn: MdnMode;
	/** Ask for a signed MDN (default yes), its MIC in this algorithm (default: the signature's digest). */
	mdnSigned?: boolean;
	mic?: OpensslDigest;
	/** Inbound: the `micalg` spelling and AS2-Version the peer writes. */
	micalg?: string;
	as2Version?: string;
}

/**
 * Eight exchanges for one MDN mode: every cipher once (five of them signed too, one
 * encrypted only), the digests and key transports rotating from `offset` so each appears,
 * then one signed only and one plain.
 */
function coveringSet(mdn: "sync" | "async", offset: number): Exchange[] {
	const encrypted: Exchange[] = CIPHERS.map((cipher, i) => ({
		...(i === (offset + 4) % CIPHERS.length ? {} : { sign: DIGESTS[(i + offset) % DIGESTS.length] }),
		encrypt: { cipher, keyTransport: KEY_TRANSPORTS[(i + offset) % KEY_TRANSPORTS.length]! },
		mdn,
	}));
	return [...encrypted, { sign: DIGESTS[(offset + 2) % DIGESTS.length], mdn }, { mdn, mdnSigned: mdn === "async" }];
}

const EXCHANGES: Exchange[] = [
	...coveringSet("sync", 0),
	...coveringSet("async", 1),
	{ sign: "sha256", encrypt: { cipher: "AES128_CBC", keyTransport: "oaep" }, mdn: "none" },
	// RFC 4130 §7.3: the MIC is asked in signed-receipt-micalg, which need not be the signature's digest.
	{ sign: "sha1", encrypt: { cipher: "AES256_GCM", keyTransport: "oaep-sha256" }, mic: "sha512", mdn: "sync" },
	{ sign: "sha512", mic: "sha256", mdn: "async" },
];
const OUTBOUND = EXCHANGES;
const INBOUND = [...coveringSet("sync", 2), ...coveringSet("async", 3), ...EXCHANGES.slice(-3)].map((exchange, i) => {
	const spellings = exchange.sign ? MICALG_SPELLINGS[exchange.sign] : [];
	return {
		...exchange,
		...(exchange.sign ? { micalg: spellings[i % spellings.length] } : {}),
		as2Version: ["1.2", "1.1", "1.0"][i % 3],
	};
});

function describeExchange(exchange: Exchange): string {
	const shape =
		exchange.sign && exchange.encrypt
			? "signed+encrypted"
			: exchange.sign
				? "signed"
				: exchange.encrypt
					? "encrypted"
					: "plain";
	const parts = [shape];
	if (exchange.sign) parts.push(exchange.sign + (exchange.micalg ? ` (micalg=${exchange.micalg})` : ""));
	if (exchange.encrypt) parts.push(exchange.encrypt.cipher, exchange.encrypt.keyTransport);
	if (exchange.mic) parts.push(`MIC in ${exchange.mic}`);
	parts.push(`${exchange.mdn} MDN${exchange.mdn !== "none" && exchange.mdnSigned === false ? " (unsigned)" : ""}`);
	if (exchange.as2Version) parts.push(`AS2 ${exchange.as2Version}`);
	return parts.join(", ");
}

/** X12 with CRLF and bare-LF line ends, a NUL and high bytes: every byte must arrive as sent. */
const PAYLOAD = Buffer.concat([
	Buffer.from(
		"ISA*00*          *00*          *ZZ*AS2KIT*ZZ*OPENSSL~\r\nGS*PO*AS2KIT*OPENSSL~\nST*850*0001~\r\n",
		"latin1",
	),
	Buffer.from([0x00, 0xc3, 0xa9, 0xff, 0x0d, 0x0a]),
	Buffer.from("SE*2*0001~\r\nIEA*1*000000001~\r\n", "latin1"),
]);

const certs = makeCertificates();
const peerIdentity = certs.selfSigned("ossl-matrix-peer");
const stranger = certs.selfSigned("ossl-matrix-stranger");
let world: Awaited<ReturnType<typeof startPartnerWorld>>;
let peer: OpensslPeer;
let partnerCount = 0;

beforeAll(async () => {
	peer = await startOpensslPeer({ identity: peerIdentity, workDir: certs.dir });
	world = await startPartnerWorld({ name: "ossl-matrix", certDir: certs.dir });
	peer.trust(world.ourCertPath, world.server.base);
	// The one partner the peer sends as: it may send anything (signed or not, encrypted or not).
	await createPartner("OSSL-PEER", {
		sign: false,
		encrypt: false,
		inbound: { require_signed: false, require_encrypted: false },
	});
});
afterEach(() => {
	// Whatever went wrong inside the peer (a decryption, a verification, an MDN refused).
	expect(peer?.takeFailures() ?? []).toEqual([]);
});
afterAll(async () => {
	await world?.stop();
	await peer?.stop();
	rmSync(certs.dir, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) =>
	call(world.server.base, method, path, { token: world.liveKey, body });

async function createPartner(as2Id: string, settings: Record<string, unknown>): Promise<string> {
	const created = await api("POST", "/v1/partners", { name: as2Id, as2_id: as2Id, url: peer.url, ...settings });
	expect(created.status, created.text).toBe(201);
	const id = created.json.data.id;
	const certificate = await api("POST", `/v1/partners/${id}/certificates`, {
		name: "openssl peer",
		usage: "both",
		certificate: peerIdentity.certPem,
	});
	expect(certificate.status, certificate.text).toBe(201);
	return id;
}

/** A partner for one outbound exchange, the peer answering as `quirks` say. */
async function outboundPartner(exchange: Exchange, extra: Record<string, unknown> = {}, quirks: PeerQuirks = {}) {
	const as2Id = `OSSL-OUT-${++partnerCount}`;
	peer.answerAs(as2Id, quirks);
	return createPartner(as2Id, {
		sign: Boolean(exchange.sign),
		encrypt: Boolean(exchange.encrypt),
		mdn_mode: exchange.mdn,
		mdn: {
			signed: exchange.mdnSigned !== false,
			url: `${world.server.base}/as2/receive`,
			...(exchange.mic ? { algorithm: exchange.mic } : {}),
		},
		...(exchange.sign ? { sign_algorithm: `${exchange.sign.toUpperCase()}withRSA` } : {}),
		...(exchange.encrypt
			? { encrypt_algorithm: exchange.encrypt.cipher, compatibility: { key_encryption: exchange.encrypt.keyTransport } }
			: {}),
		...extra,
	});
}

/** Sends PAYLOAD to the partner; the message detail once it has settled (bounded, 30 s), and what the peer found. */
async function sendToPeer(partnerId: string, settled: string[], payload = PAYLOAD) {
	const sent = await api("POST", "/v1/messages", {
		partner_id: partnerId,
		content_type: "application/edi-x12",
		payload: { content: payload.toString("base64"), encoding: "base64" },
	});
	expect(sent.status, sent.text).toBe(202);
	const atPeer = await peer.received(sent.json.data.message_id);
	// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
	let message: any;
	for (let i = 0; i < 300; i++) {
		message = (await api("GET", `/v1/messages/${sent.json.data.id}`)).json.data;
		if (settled.includes(message.status)) break;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return { message, atPeer };
}

/** An inbound message's detail by Message-ID, once it has left processing (bounded, 30 s). */
async function inbound(messageId: string) {
	for (let i = 0; i < 300; i++) {
		const list = await api("GET", `/v1/messages?direction=inbound&search=${encodeURIComponent(messageId)}`);
		const found = list.json.data.find((m: { message_id: string }) => m.message_id === messageId);
		if (found && !["queued", "processing", "receiving"].includes(found.status)) {
			return (await api("GET", `/v1/messages/${found.id}`)).json.data;
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`inbound ${messageId} not settled within 30 s`);
}

/**
 * The peer sends; checks what it verified of the MDN (openssl verified its signature, the
 * disposition, the MIC against its own) and returns what as2kit recorded.
 */
async function peerSends(message: Omit<PeerMessage, "from" | "to">) {
	const sent = await peer.send({ from: "OSSL-PEER", to: world.tenantAs2Id, ...message });
	expect(sent.status).toBe(200);
	if (message.mdn === "none") {
		expect(sent.mdn).toBeNull();
	} else {
		expect(sent.mdn).toMatchObject({
			originalMessageId: sent.messageId,
			disposition: "processed",
			signed: message.mdnSigned !== false,
		});
		if (message.mdnSigned !== false) expect(normalMic(sent.mdn!.receivedContentMic)).toBe(normalMic(sent.mic));
	}
	return { sent, message: await inbound(sent.messageId) };
}

async function payloadOf(messageId: string): Promise<Buffer> {
	const response = await fetch(`${world.server.base}/v1/messages/${messageId}/payload`, {
		headers: { authorization: `Bearer ${world.liveKey}` },
		signal: AbortSignal.timeout(30_000),
	});
	expect(response.status).toBe(200);
	return Buffer.from(await response.arrayBuffer());
}

/** The MIC algorithm an exchange asks for: its own, else the signature's digest, else SHA-256. */
const micAlgorithmOf = (exchange: Exchange) => exchange.mic ?? exchange.sign ?? "sha256";

/** `base64, sha-256` and `base64,SHA256` are one MIC (RFC 4130 §7.4.3 leaves the spelling loose). */
const normalMic = (mic: string | null | undefined) =>
	mic
		? mic
				.replace(/\s+/g, "")
				.toLowerCase()
				.replace(/sha-?_?(\d)/, "sha$1")
		: mic;

it("the rows cover every digest, cipher, key transport, shape and micalg spelling in both directions, with sync and async MDNs", () => {
	for (const rows of [OUTBOUND, INBOUND]) {
		for (const mdn of ["sync", "async"] as const) {
			const these = rows.filter((row) => row.mdn === mdn);
			expect(new Set(these.flatMap((row) => row.sign ?? []))).toEqual(new Set(DIGESTS));
			expect(new Set(these.flatMap((row) => row.encrypt?.cipher ?? []))).toEqual(new Set(CIPHERS));
			expect(new Set(these.flatMap((row) => row.encrypt?.keyTransport ?? []))).toEqual(new Set(KEY_TRANSPORTS));
			expect(new Set(these.map(describeExchange).map((name) => name.split(",")[0]))).toEqual(
				new Set(["signed+encrypted", "signed", "encrypted", "plain"]),
			);
		}
		expect(rows.filter((row) => row.mdn === "none")).not.toEqual([]);
	}
	expect(new Set(INBOUND.flatMap((row) => row.micalg ?? []))).toEqual(new Set(Object.values(MICALG_SPELLINGS).flat()));
	expect(new Set(INBOUND.map((row) => row.as2Version))).toEqual(new Set(["1.0", "1.1", "1.2"]));
});

describe("as2kit → OpenSSL peer", () => {
	it.each(OUTBOUND.map((exchange) => [describeExchange(exchange), exchange] as const))("%s", async (_, exchange) => {
		const partnerId = await outboundPartner(exchange);
		const { message, atPeer } = await sendToPeer(
			partnerId,
			exchange.mdn === "none" ? ["sent", "delivered", "failed"] : ["delivered", "failed"],
		);
		// What the peer verified on its own.
		expect(atPeer.payload.equals(PAYLOAD), "the peer got the payload byte-exact").toBe(true);
		expect(atPeer.encryption).toEqual(
			exchange.encrypt
				? {
						container: exchange.encrypt.cipher.endsWith("GCM") ? "authEnvelopedData" : "envelopedData",
						cipher: OPENSSL_CIPHER[exchange.encrypt.cipher].printed,
						keyTransport: PRINTED_KEY_TRANSPORT[exchange.encrypt.keyTransport],
					}
				: null,
		);
		// Strict RFC by default: CMS signed attributes (RFC 5652 §5.3), the RFC 5751 micalg name.
		expect(atPeer.signature).toEqual(
			exchange.sign
				? { digest: exchange.sign, micalg: MICALG_SPELLINGS[exchange.sign][0], signedAttributes: true }
				: null,
		);
		expect(atPeer.payloadType).toMatch(/^application\/edi-x12\b/);
		expect(atPeer.mdn).toBe(exchange.mdn);
		// What as2kit recorded.
		expect(message).toMatchObject({ signed: Boolean(exchange.sign), encrypted: Boolean(exchange.encrypt) });
		if (exchange.mdn === "none") {
			expect(message.status).toBe("sent");
		} else if (exchange.mdnSigned === false) {
			expect(message).toMatchObject({ status: "delivered", mdn_status: "received", mdn_data: { signed: false } });
		} else {
			expect(message).toMatchObject({
				status: "delivered",
				mdn_status: "received",
				mdn_data: {
					original_message_id: message.message_id,
					reporting_ua: "as2kit OpenSSL CLI test peer",
					signed: true,
					signature_valid: true,
					mic_matches: true,
					mic_missing: false,
				},
			});
			// The MIC the peer computed with openssl dgst is the one we expected.
			expect(normalMic(atPeer.mic)).toBe(normalMic(message.mic));
			expect(normalMic(atPeer.mic)).toMatch(new RegExp(`,${micAlgorithmOf(exchange)}$`));
			expect(normalMic(message.mdn_data.received_content_mic)).toBe(normalMic(atPeer.mic));
		}
	});
});

describe("OpenSSL peer → as2kit", () => {
	it.each(INBOUND.map((exchange) => [describeExchange(exchange), exchange] as const))("%s", async (_, exchange) => {
		const { sent, message } = await peerSends({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			...(exchange.sign ? { sign: { digest: exchange.sign, micalg: exchange.micalg! } } : {}),
			...(exchange.encrypt
				? {
						encrypt: {
							cipher: OPENSSL_CIPHER[exchange.encrypt.cipher].option,
							keyTransport: exchange.encrypt.keyTransport,
						},
					}
				: {}),
			mdn: exchange.mdn,
			mdnSigned: exchange.mdnSigned !== false,
			...(exchange.mic ? { micAlgorithm: exchange.mic } : {}),
			as2Version: exchange.as2Version!,
		});
		// What as2kit recorded.
		expect(message).toMatchObject({
			status: "received",
			signed: Boolean(exchange.sign),
			encrypted: Boolean(exchange.encrypt),
		});
		expect(message.details.mdn_request?.mode ?? "none").toBe(exchange.mdn);
		const layers = [];
		if (exchange.encrypt) {
			const gcm = exchange.encrypt.cipher.endsWith("GCM");
			layers.push({
				kind: "encrypted",
				container: gcm ? "auth-enveloped-data" : "enveloped-data",
				algorithm: AS2KIT_CIPHER[exchange.encrypt.cipher],
				keyEncryption: exchange.encrypt.keyTransport,
			});
		}
		if (exchange.sign)
			layers.push({ kind: "signed", form: "multipart", micalg: exchange.micalg, digest: exchange.sign });
		expect(message.details.layers ?? []).toEqual(layers);
		if (exchange.mdn !== "none" && exchange.mdnSigned !== false)
			expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
		expect(normalMic(sent.mic)).toMatch(new RegExp(`,${micAlgorithmOf(exchange)}$`));
		expect((await payloadOf(message.id)).equals(PAYLOAD), "as2kit hands out the payload byte-exact").toBe(true);
	});
});

describe("as2kit → OpenSSL peer answering as the partners of issue #17 do", () => {
	/** Sends to a fresh partner the peer answers as `quirks` say; the settled message and what the peer found. */
	async function exchangeWith(exchange: Exchange, quirks: PeerQuirks, extra: Record<string, unknown> = {}) {
		const partnerId = await outboundPartner(exchange, extra, quirks);
		const result = await sendToPeer(partnerId, ["delivered", "failed"]);
		expect(result.atPeer.payload.equals(PAYLOAD), "the peer got the payload byte-exact").toBe(true);
		return result;
	}

	// Issue #17 defect 1; as2-anchors §C6 (pyas2-lib#19): pyas2-lib computes no MIC for a message
	// that was not signed, and its signed MDN then has no Received-Content-MIC. pyas2-lib 1.4.4's
	// OAEP is RFC 3560's defaults, which `key_encryption: oaep` must mean (defect 2).
	it("pyas2-lib: a signed async MDN without MIC for an encrypted-only message (AES256_CBC, oaep): delivered, mic_missing", async () => {
		const { message, atPeer } = await exchangeWith(
			{ encrypt: { cipher: "AES256_CBC", keyTransport: "oaep" }, mdn: "async" },
			{ pyas2MiclessMdn: true },
		);
		expect(atPeer.encryption?.keyTransport).toBe("oaep-sha1/mgf1-sha1");
		expect(atPeer.mdnMic).toBeNull();
		expect(message).toMatchObject({
			status: "delivered",
			mdn_data: { signed: true, signature_valid: true, received_content_mic: null, mic_missing: true },
		});
	});

	it("pyas2-lib: a signed sync MDN without MIC for a plain message: delivered, mic_missing", async () => {
		const { message, atPeer } = await exchangeWith({ mdn: "sync" }, { pyas2MiclessMdn: true });
		expect(atPeer.mdnMic).toBeNull();
		expect(message).toMatchObject({
			status: "delivered",
			mdn_data: { signed: true, signature_valid: true, received_content_mic: null, mic_missing: true },
		});
	});

	// RFC 4130 §7.4.3: the MIC is required when the message was signed; its absence is no receipt.
	it("a signed MDN without MIC for a signed message (sha256, 3DES, rsa): failed, not delivered", async () => {
		const { message } = await exchangeWith(
			{ sign: "sha256", encrypt: { cipher: "3DES", keyTransport: "rsa" }, mdn: "sync" },
			{ omitMic: true },
		);
		expect(message).toMatchObject({ status: "failed", mdn_data: { received_content_mic: null } });
		expect(message).toMatchObject({ error_code: "MIC_MISMATCH", mdn_data: { signature_valid: true } });
		expect(message.error_message).toMatch(/MIC \(none\)/);
	});

	// Issue #17 defect 5 (7 of 7 live async MDNs): OpenAS2 4.9 opens the body of its signed async
	// MDN with its own Content-Type line as a preamble. OpenAS2 has no RSA-OAEP (as2-anchors §A).
	it("OpenAS2 4.9: a signed async MDN with a preamble repeating its Content-Type (sha256, 3DES, rsa): delivered", async () => {
		const { message } = await exchangeWith(
			{ sign: "sha256", encrypt: { cipher: "3DES", keyTransport: "rsa" }, mdn: "async" },
			{ openas2Preamble: true },
		);
		expect(message).toMatchObject({
			status: "delivered",
			mdn_data: { signed: true, signature_valid: true, mic_matches: true, mic_missing: false },
		});
	});

	// Issue #17 defect 6; RFC 4130 §7.3.1: a partner may return the MIC in another algorithm than
	// asked (SHA-1 is what older implementations always compute).
	it("a partner returning a SHA-1 MIC for a SHA-512 request (sha512, AES192_CBC, oaep-sha512, async): delivered", async () => {
		const { message, atPeer } = await exchangeWith(
			{ sign: "sha512", encrypt: { cipher: "AES192_CBC", keyTransport: "oaep-sha512" }, mdn: "async" },
			{ micAlgorithm: "sha1" },
		);
		expect(atPeer.mic).toMatch(/, sha-1$/);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
		expect(normalMic(message.mdn_data.received_content_mic)).toBe(normalMic(atPeer.mic));
	});

	// Orderful's axios client base64-encodes the whole HTTP body of its async MDNs, saying so in
	// the HTTP headers (OpenAs2App#299, as2-anchors §C10).
	it("Orderful: a signed async MDN whose HTTP body is base64 (sha1, AES128_GCM, oaep-sha256): delivered", async () => {
		const { message } = await exchangeWith(
			{ sign: "sha1", encrypt: { cipher: "AES128_GCM", keyTransport: "oaep-sha256" }, mdn: "async" },
			{ base64HttpBody: true },
		);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
	});

	// as2-anchors §C.5, §D.9: IBM Sterling refuses CMS signed attributes; the profile drops them,
	// and openssl still verifies the signature over the exact bytes.
	it("profile ibm-sterling: openssl verifies a signature without signed attributes (sha384, AES256_CBC, rsa, sync)", async () => {
		const { message, atPeer } = await exchangeWith(
			{ sign: "sha384", encrypt: { cipher: "AES256_CBC", keyTransport: "rsa" }, mdn: "sync" },
			{},
			{ compatibility: { profile: "ibm-sterling", key_encryption: "rsa" } },
		);
		expect(atPeer.signature).toMatchObject({ digest: "sha384", signedAttributes: false });
		expect(message).toMatchObject({ status: "delivered", mdn_data: { mic_matches: true } });
	});

	// as2-anchors §C.4, §D.2 (django-pyas2#5): Axway needs base64 parts; the peer decodes them.
	it("profile axway: the payload in base64 Content-Transfer-Encoding (sha256, AES256_GCM, oaep-sha384, async)", async () => {
		const { message, atPeer } = await exchangeWith(
			{ sign: "sha256", encrypt: { cipher: "AES256_GCM", keyTransport: "oaep-sha384" }, mdn: "async" },
			{},
			{ compatibility: { profile: "axway", key_encryption: "oaep-sha384" } },
		);
		expect(atPeer.transferEncoding.toLowerCase()).toBe("base64");
		expect(atPeer.signature?.signedAttributes).toBe(true);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { mic_matches: true } });
	});

	// An AS2 partner scripted around the OpenSSL CLI posts what `openssl cms -sign` writes: LF
	// delimiter lines and a preamble around the CRLF report (RFC 2046 §5.1.1 allows the preamble;
	// RFC 4130 §7.4.3 asks only for a signed multipart/report).
	it("an MDN as `openssl cms -sign` frames it: LF delimiters and a preamble (sha256, AES128_CBC, oaep, async): delivered", async () => {
		const { message } = await exchangeWith(
			{ sign: "sha256", encrypt: { cipher: "AES128_CBC", keyTransport: "oaep" }, mdn: "async" },
			{ framing: "cms" },
		);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
	});

	it("an MDN as `openssl smime -sign` frames it: application/x-pkcs7-signature (sha512, sync): delivered", async () => {
		const { message } = await exchangeWith({ sign: "sha512", mdn: "sync" }, { framing: "smime" });
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
	});

	// mendelson and pyas2-lib 1.4.4 may sign their MDNs with RSASSA-PSS (RFC 4056; as2-anchors §A).
	it("an MDN signed with RSASSA-PSS (sha256, AES128_CBC, oaep-sha256, async): delivered", async () => {
		const { message } = await exchangeWith(
			{ sign: "sha256", encrypt: { cipher: "AES128_CBC", keyTransport: "oaep-sha256" }, mdn: "async" },
			{ mdnCmsOptions: ["-keyopt", "rsa_padding_mode:pss"] },
		);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
	});

	// IBM Sterling signs without CMS signed attributes (as2-anchors §C.5, §D.9); RFC 5652 §5.1
	// makes the certificates optional, and the partner record holds the signer's.
	it("an MDN signed without signed attributes or certificates (-noattr -nocerts; sha384, sync): delivered", async () => {
		const { message } = await exchangeWith({ sign: "sha384", mdn: "sync" }, { mdnCmsOptions: ["-noattr", "-nocerts"] });
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
	});

	// Forged: an MDN signed by a key the partner record does not hold settles nothing.
	it("hostile: an async MDN signed by a stranger's key (sha256, AES256_CBC, rsa): refused with 400, the message still awaits its MDN", async () => {
		const partnerId = await outboundPartner(
			{ sign: "sha256", encrypt: { cipher: "AES256_CBC", keyTransport: "rsa" }, mdn: "async" },
			{},
			{ signWith: stranger },
		);
		const { message, atPeer } = await sendToPeer(partnerId, ["sent"]);
		expect(atPeer.payload.equals(PAYLOAD)).toBe(true);
		const answer = await peer.mdnAnswer(message.message_id);
		expect(answer.status).toBe(400);
		expect(answer.text).toMatch(/signature does not verify/);
		expect((await api("GET", `/v1/messages/${message.id}`)).json.data).toMatchObject({
			status: "sent",
			mdn_status: "pending",
			rejected_mdns: [{}],
		});
		world.server.assertAlive();
	});
});

describe("OpenSSL peer sending as the partners of issue #17 do → as2kit", () => {
	// Issue #17 defect 4: mendelson (unsigned, 3DES) may put the bare file, no MIME header, in
	// EnvelopedData. RFC 4130 §7.3.1: the MIC of an encrypted unsigned message covers what was
	// encrypted — here the bare file.
	it("mendelson: the bare EDIFACT file in 3DES EnvelopedData, async signed MDN: received byte-exact", async () => {
		const { message } = await peerSends({
			payload: EDIFACT_INTERCHANGE,
			contentType: "application/edifact",
			encrypt: { cipher: "des3", keyTransport: "rsa" },
			shape: "raw-enveloped",
			mdn: "async",
		});
		expect(message).toMatchObject({ status: "received", encrypted: true, content_type: "application/octet-stream" });
		expect((await payloadOf(message.id)).equals(EDIFACT_INTERCHANGE)).toBe(true);
	});

	// Issue #17 defect 3 (mendelson and IBM Sterling captures, phase2#12, pyas2-lib PR #8;
	// as2-anchors §C.3, §D1): signed with CRLF, delivered with every CRLF turned into LF.
	it("line ends damaged after signing: signed CRLF (sha384), delivered LF, async MDN: received as crlf, the MIC over the signed bytes", async () => {
		const text = Buffer.from("UNB+UNOA:2+OSSL+AS2KIT'\r\nUNH+1+ORDERS:D:96A:UN'\r\nUNZ+1+1'\r\n", "latin1");
		const { sent, message } = await peerSends({
			payload: text,
			contentType: "text/plain",
			sign: { digest: "sha384" },
			shape: "lf-damaged",
			mdn: "async",
		});
		expect(message).toMatchObject({ status: "received", signed: true, details: { signature_variant: "crlf" } });
		expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
	});

	// as2-anchors §C.4, §D.2: partners that send their entity base64-encoded (Axway-style).
	it("the signed entity in base64 Content-Transfer-Encoding (sha512, AES256_GCM, oaep-sha512, sync): received byte-exact", async () => {
		const { message } = await peerSends({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			transferEncoding: "base64",
			sign: { digest: "sha512" },
			encrypt: { cipher: "aes-256-gcm", keyTransport: "oaep-sha512" },
			mdn: "sync",
		});
		expect(message).toMatchObject({ status: "received", signed: true, encrypted: true });
		expect((await payloadOf(message.id)).equals(PAYLOAD)).toBe(true);
	});

	it("a message as `openssl smime -sign` frames it: x-pkcs7-signature, LF delimiters, a preamble (sha256, sync): received", async () => {
		const { sent, message } = await peerSends({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			sign: { digest: "sha256", framing: "smime" },
			mdn: "sync",
		});
		expect(message).toMatchObject({ status: "received", signed: true });
		expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
		expect((await payloadOf(message.id)).equals(PAYLOAD)).toBe(true);
	});

	it("a message as `openssl cms -sign` frames it, then encrypted (sha1, AES192_CBC, oaep-sha256, async): received", async () => {
		const { sent, message } = await peerSends({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			sign: { digest: "sha1", framing: "cms" },
			encrypt: { cipher: "aes192", keyTransport: "oaep-sha256" },
			mdn: "async",
		});
		expect(message).toMatchObject({ status: "received", signed: true, encrypted: true });
		expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
		expect((await payloadOf(message.id)).equals(PAYLOAD)).toBe(true);
	});

	// Hostile: encrypted to a certificate that is not ours. The MDN says so, signed; openssl verifies it.
	it("hostile: encrypted to a stranger's certificate (AES128_GCM, oaep-sha512, async): a signed decryption-failed MDN, not received", async () => {
		const sent = await peer.send({
			from: "OSSL-PEER",
			to: world.tenantAs2Id,
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			encrypt: { cipher: "aes-128-gcm", keyTransport: "oaep-sha512", recipientCertPath: stranger.certPath },
			mdn: "async",
		});
		expect(sent.status).toBe(200);
		expect(sent.mdn).toMatchObject({
			signed: true,
			disposition: expect.stringMatching(/^processed\/error: decryption-failed/),
		});
		const list = await api("GET", `/v1/messages?direction=inbound&search=${encodeURIComponent(sent.messageId)}`);
		expect(list.json.data.filter((m: { status: string }) => m.status === "received")).toEqual([]);
		world.server.assertAlive();
	});
});

describe("OpenSSL CLI options partners' toolkits use → as2kit", () => {
	const rows: Array<[string, Pick<PeerMessage, "sign" | "encrypt" | "mdn">]> = [
		// IBM Sterling signs without CMS signed attributes (as2-anchors §C.5, §D.9).
		[
			"signed without signed attributes (-noattr), sha256, sync",
			{ sign: { digest: "sha256", cmsOptions: ["-noattr"] }, mdn: "sync" },
		],
		// RFC 5652 §5.1: certificates are optional; the partner record holds the signer's.
		[
			"signed without certificates in the SignedData (-nocerts), sha384, AES128_CBC, async",
			{
				sign: { digest: "sha384", cmsOptions: ["-nocerts"] },
				encrypt: { cipher: "aes128", keyTransport: "rsa" },
				mdn: "async",
			},
		],
		// RFC 5652 §6.2.1: the RecipientIdentifier may be a subjectKeyIdentifier instead of issuer and serial.
		[
			"encrypted to a recipient named by subjectKeyIdentifier (-keyid), sha512, AES256_GCM, oaep, sync",
			{
				sign: { digest: "sha512" },
				encrypt: { cipher: "aes-256-gcm", keyTransport: "oaep", cmsOptions: ["-keyid"] },
				mdn: "sync",
			},
		],
		// BER indefinite lengths, as streaming CMS writers produce them (RFC 5652 §1.2 allows BER).
		[
			"signed then encrypted as streamed BER (-stream), sha1, 3DES, oaep-sha512, async",
			{
				sign: { digest: "sha1" },
				encrypt: { cipher: "des3", keyTransport: "oaep-sha512", cmsOptions: ["-stream"] },
				mdn: "async",
			},
		],
		// mendelson and pyas2-lib 1.4.4 sign with RSASSA-PSS (RFC 4056; as2-anchors §A algorithm table).
		[
			"signed with RSASSA-PSS (-keyopt rsa_padding_mode:pss), sha384, AES128_GCM, rsa, async",
			{
				sign: { digest: "sha384", cmsOptions: ["-keyopt", "rsa_padding_mode:pss"] },
				encrypt: { cipher: "aes-128-gcm", keyTransport: "rsa" },
				mdn: "async",
			},
		],
		// RFC 5751 §3.5.2: signed-data with the content inside (application/pkcs7-mime).
		["opaque signed-data (-nodetach), sha256, sync", { sign: { digest: "sha256", framing: "opaque" }, mdn: "sync" }],
	];
	it.each(rows)("%s: received byte-exact, the MIC the peer's", async (_, options) => {
		const { sent, message } = await peerSends({ payload: PAYLOAD, contentType: "application/edi-x12", ...options });
		expect(message).toMatchObject({ status: "received", signed: true, encrypted: Boolean(options.encrypt) });
		expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
		expect((await payloadOf(message.id)).equals(PAYLOAD)).toBe(true);
	});
});

describe("a 1 MiB binary payload, both ways", () => {
	// Random bytes: every CR, LF, NUL and high byte must survive the streaming paths untouched.
	const BIG = randomBytes(1024 * 1024);
	const exchange: Exchange = {
		sign: "sha256",
		encrypt: { cipher: "AES256_CBC", keyTransport: "oaep-sha256" },
		mdn: "async",
	};

	it("as2kit → peer (sha256, AES256_CBC, oaep-sha256, async): the peer gets it byte-exact, the MIC matches", async () => {
		const { message, atPeer } = await sendToPeer(await outboundPartner(exchange), ["delivered", "failed"], BIG);
		expect(atPeer.payload.equals(BIG)).toBe(true);
		expect(message).toMatchObject({ status: "delivered", mdn_data: { signature_valid: true, mic_matches: true } });
		expect(normalMic(atPeer.mic)).toBe(normalMic(message.mic));
	});

	it("peer → as2kit (sha256, AES256_CBC, oaep-sha256, async): received byte-exact, the MIC the peer's", async () => {
		const { sent, message } = await peerSends({
			payload: BIG,
			contentType: "application/octet-stream",
			sign: { digest: "sha256" },
			encrypt: { cipher: "aes256", keyTransport: "oaep-sha256" },
			mdn: "async",
		});
		expect(message).toMatchObject({ status: "received", bytes: BIG.byteLength });
		expect(normalMic(message.mic)).toBe(normalMic(sent.mic));
		expect((await payloadOf(message.id)).equals(BIG)).toBe(true);
	});
});
