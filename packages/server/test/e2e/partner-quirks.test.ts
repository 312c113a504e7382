import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { storeMessage } from "../helpers/messages.ts";
import {
	base64HttpBody,
	encryptedMessage,
	handAssembledMdn,
	type MessageIds,
	mimeEntity,
	openas2AsyncMdn,
	pyas2SignedMdn,
	type SignedMessageOptions,
	signedMessage,
	type WireMessage,
} from "../helpers/partner-bytes.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * Issue #17, defect 6: one table of the inbound partner quirks of
 * the research notes (shared/research/as2-anchors.md) §C and §D, each row its own test against the server.
 * Every partner's bytes are built with the OpenSSL CLI (`openssl cms -sign/-encrypt`) and
 * MIME assembled by hand as the partner writes it (helpers/partner-bytes.ts), never by our
 * own pack(). Messages go to /as2/receive with a signed sync MDN requested, and the MDN we
 * answer must say `processed` with the MIC of the bytes the partner signed (RFC 4130
 * §7.3.1); async MDNs go to /as2/mdn (or /as2/receive) for a message awaiting one, and must
 * deliver it. The unit-level twins stay in packages/as2-core/test/quirks.test.ts.
 */
const certs = makeCertificates();
const partnerKey = certs.selfSigned("quirks-partner");
const PAYLOAD = "ISA*00*          *00*          *ZZ*QUIRKS*ZZ*AS2KIT~\r\nST*850*0001~\r\nBEG*00*SA*PO=42~\r\n";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let tenantAs2Id: string;
let ourCertPath: string;
let partnerCount = 0;
beforeAll(async () => {
	t = createTestApp({
		defaultPlan: "professional",
		allowHttp: true,
		allowPrivateTargets: true,
		publicUrl: "https://as2kit.example",
	});
	owner = await register(t);
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
	const identity = (await t.call("GET", "/v1/certificates?type=identity", { token: owner.token })).json.data[0];
	ourCertPath = join(certs.dir, "quirks-identity.pem");
	writeFileSync(ourCertPath, identity.certificate_pem);
});
afterAll(async () => {
	await t.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

/** A partner of ours holding `partnerKey`'s certificate, with a fresh AS2 id. */
async function partner(settings: Record<string, unknown> = {}): Promise<{ id: string; as2Id: string }> {
	const as2Id = `QUIRK-${++partnerCount}`;
	const created = await t.call("POST", "/v1/partners", {
		token: owner.token,
		body: { name: as2Id, as2_id: as2Id, url: `https://quirk${partnerCount}.example/as2`, ...settings },
	});
	expect(created.status, created.text).toBe(201);
	const cert = await t.call("POST", `/v1/partners/${created.json.data.id}/certificates`, {
		token: owner.token,
		body: { name: "partner", usage: "both", certificate: partnerKey.certPem },
	});
	expect(cert.status, cert.text).toBe(201);
	return { id: created.json.data.id, as2Id };
}

async function post(path: "/as2/receive" | "/as2/mdn", wire: WireMessage) {
	const response = await t.app.request(path, {
		method: "POST",
		headers: wire.headers,
		body: new Uint8Array(wire.body),
	});
	return { status: response.status, text: await response.text() };
}

/** The X12 payload as a MIME entity, with the partner's extra header lines and encoded body. */
const x12Entity = (lines: string[] = [], body: string = PAYLOAD) =>
	mimeEntity(['Content-Type: application/edi-x12; name="po.x12"', ...lines], body);

const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("base64");

/** Asks for a signed sync MDN with the MIC in `micalg` as the partner spells it (RFC 4130 §7.3). */
const syncMdnRequest = (micalg: string) => ({
	"Disposition-Notification-To": "as2@partner.example",
	"Disposition-Notification-Options": `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, ${micalg}`,
});

interface MessageRow {
	quirk: string;
	/** Where the research notes (or the public source they cite) describe it. */
	reference: string;
	/** The partner's bytes for `ids`: OpenSSL CLI + hand-assembled MIME. */
	build: (ids: MessageIds) => WireMessage;
	/** Expected: the MDN's Received-Content-MIC, over these bytes in this algorithm (RFC 5751 name). */
	mic: { over: Buffer; algorithm: "sha1" | "sha256" | "sha384" | "sha512" };
	signed: boolean;
}

/** A signed X12 message with a SHA-256 MIC asked, its wire then changed by `quirk`. */
function signedRow(
	quirk: string,
	reference: string,
	entity: Buffer,
	change: (wire: WireMessage) => WireMessage,
	options: Partial<SignedMessageOptions> = {},
): MessageRow {
	return {
		quirk,
		reference,
		build: (ids) =>
			change(
				signedMessage(certs.dir, entity, partnerKey, ids, {
					digest: "sha256",
					micalg: "sha-256",
					headers: syncMdnRequest("sha-256"),
					...options,
				}),
			),
		mic: { over: entity, algorithm: "sha256" },
		signed: true,
	};
}

const MICALG_NAMES = { sha1: "sha-1", sha256: "sha-256", sha384: "sha-384", sha512: "sha-512" } as const;

/** A signed X12 message whose multipart/signed `micalg` and receipt micalg read `spelling`. */
function micalgRow(
	spelling: string,
	algorithm: MessageRow["mic"]["algorithm"],
	reference: string,
	partnerName: string,
): MessageRow {
	const entity = x12Entity();
	return {
		quirk: `${partnerName}: micalg=${spelling}`,
		reference,
		build: (ids) =>
			signedMessage(certs.dir, entity, partnerKey, ids, {
				digest: algorithm,
				micalg: spelling,
				headers: syncMdnRequest(spelling),
			}),
		mic: { over: entity, algorithm },
		signed: true,
	};
}

function as2VersionRow(version: string, reference: string): MessageRow {
	const entity = x12Entity();
	return {
		quirk: `AS2-Version: ${version}`,
		reference,
		build: (ids) =>
			signedMessage(certs.dir, entity, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				headers: { "AS2-Version": version, ...syncMdnRequest("sha-256") },
			}),
		mic: { over: entity, algorithm: "sha256" },
		signed: true,
	};
}

const signedX12 = x12Entity();
const base64Part = x12Entity(["Content-Transfer-Encoding: base64"], `${Buffer.from(PAYLOAD).toString("base64")}\r\n`);
// "=3D" and a soft line break: what a quoted-printable encoder makes of an X12 `=`.
const quotedPrintablePart = x12Entity(
	["Content-Transfer-Encoding: quoted-printable"],
	PAYLOAD.replace("PO=42", "PO=3D4=\r\n2"),
);
const encryptedEntity = x12Entity(["Content-Transfer-Encoding: binary"]);

const eightBitPart = x12Entity(["Content-Transfer-Encoding: 8bit"]);

const MESSAGE_ROWS: MessageRow[] = [
	signedRow(
		"Multipart/Signed with upper-case parameter names",
		"§D6 / DG-1Q14 (Content-Type treated as case-sensitive)",
		signedX12,
		(wire) => ({
			...wire,
			headers: {
				...wire.headers,
				"Content-Type": wire.headers["Content-Type"]!.replace("multipart/signed", "Multipart/Signed")
					.replace("protocol=", "Protocol=")
					.replace("boundary=", "Boundary="),
			},
		}),
	),
	signedRow(
		"pyas2-lib: smime-type=signed-data on the detached signature part",
		"§D8 / pyas2-lib as2.py ~l.485",
		signedX12,
		(wire) => wire,
		{ signatureType: "application/pkcs7-signature; smime-type=signed-data" },
	),
	signedRow(
		"Content-Transfer-Encoding: 8bit in the signed MIME part",
		"§D2 / DG-1Q14 (one participant used 8bit)",
		eightBitPart,
		(wire) => wire,
	),
	signedRow("no AS2-Version header at all", "RFC 4130 §6.1 (absent means 1.0)", signedX12, (wire) => {
		const { "AS2-Version": _, ...headers } = wire.headers;
		return { ...wire, headers };
	}),
	signedRow(
		"a doubled media type, application/application/EDIFACT",
		"§D6 / DG-1Q14",
		mimeEntity(["Content-Type: application/application/EDIFACT"], PAYLOAD),
		(wire) => wire,
	),
	signedRow("AS2-From and AS2-To as quoted strings", "§D12 / RFC 4130 §6.2, DG-1Q14", signedX12, (wire) => ({
		...wire,
		headers: {
			...wire.headers,
			"AS2-From": `"${wire.headers["AS2-From"]}"`,
			"AS2-To": `"${wire.headers["AS2-To"]}"`,
		},
	})),
	micalgRow("sha1", "sha1", "§C2, §D5 / phase2#18 (RFC 3851 name)", "phase2 partner"),
	micalgRow("sha-1", "sha1", "§C2, §D5 / phase2#75 (RFC 5751 name)", "RFC 5751 sender"),
	micalgRow("SHA1", "sha1", "§D5 / IBM Sterling sb2bi_signed_cmp.msg (upper case)", "IBM Sterling"),
	micalgRow("SHA256", "sha256", "§C2 / phax/as2-server#18, pyas2-lib PR #32", "upper-case sender"),
	micalgRow("sha_256", "sha256", "§C2, §D5 / pyas2-lib#15 (Cleo, OpenAS2)", "Cleo"),
	micalgRow("sha-256", "sha256", "§D5 / RFC 5751 §3.4.3.2", "RFC 5751 sender"),
	micalgRow("sha2_256", "sha256", "§D5 (phase2 aliases)", "phase2 partner"),
	micalgRow("sha512", "sha512", "§D5 (RFC 3851 name)", "RFC 3851 sender"),
	as2VersionRow("1.0", "RFC 4130 §6.1 / §C (AS2 1.0: no compression)"),
	as2VersionRow("1.1", "RFC 4130 §6.1 (OpenAS2 4.9 sends 1.1)"),
	as2VersionRow("1.2", "RFC 4130 §6.1 / EDIINT AS2 1.2 (pyas2-lib, mendelson)"),
	{
		quirk: "multipart/signed without micalg",
		reference: "§D6 / DG-1Q14 (“Unknown MIC algorithm: null”)",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: null,
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "the first of several signed-receipt-micalg algorithms",
		reference: "§D5 / DG-1Q14",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				headers: syncMdnRequest("sha-512, sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha512" },
		signed: true,
	},
	{
		quirk: "django-pyas2: a binary signature part",
		reference: "§C4, §D2 / django-pyas2#5",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				signatureEncoding: "binary",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "a signature part with LF-only base64 lines",
		reference: "§D1 / DG-1Q14",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				signatureLfLines: true,
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "pyas2-lib 1.1.0: legacy application/x-pkcs7-signature",
		reference: "§D6 / pyas2-lib 1.1.0 changelog",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				signatureType: "application/x-pkcs7-signature",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "a non-empty epilogue after the closing delimiter",
		reference: "§D11 / DG-1Q14",
		build: (ids) =>
			signedMessage(certs.dir, signedX12, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				epilogue: "This is the epilogue.\r\n",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "Content-Transfer-Encoding: base64 in the signed MIME part",
		reference: "§C4, §D2 / django-pyas2#5 (pyas2 reverted to base64)",
		build: (ids) =>
			signedMessage(certs.dir, base64Part, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: base64Part, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "Content-Transfer-Encoding: quoted-printable in the signed MIME part",
		reference: "§D3 / DG-1Q14",
		build: (ids) =>
			signedMessage(certs.dir, quotedPrintablePart, partnerKey, ids, {
				digest: "sha256",
				micalg: "sha-256",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: quotedPrintablePart, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "Orderful (axios): a base64 HTTP body of an encrypted message",
		reference: "§C10 / OpenAs2App#299; §D2 (DG-1Q14)",
		build: (ids) =>
			base64HttpBody(
				encryptedMessage(certs.dir, encryptedEntity, ourCertPath, ids, { headers: syncMdnRequest("sha-256") }),
			),
		mic: { over: encryptedEntity, algorithm: "sha256" },
		signed: false,
	},
	{
		quirk: "a base64 HTTP body of a signed message",
		reference: "§C10 / OpenAs2App#299; §D2 (DG-1Q14, earlier rounds)",
		build: (ids) =>
			base64HttpBody(
				signedMessage(certs.dir, signedX12, partnerKey, ids, {
					digest: "sha256",
					micalg: "sha-256",
					headers: syncMdnRequest("sha-256"),
				}),
			),
		mic: { over: signedX12, algorithm: "sha256" },
		signed: true,
	},
	{
		quirk: "OpenAS2: Content-Transfer-Encoding: binary in the HTTP headers",
		reference: "§C4 / OpenAS2 HowTo “Binary Encoding”, “HTTP Restricted Headers”",
		build: (ids) => {
			const wire = encryptedMessage(certs.dir, encryptedEntity, ourCertPath, ids, {
				headers: syncMdnRequest("sha-256"),
			});
			return { headers: { ...wire.headers, "Content-Transfer-Encoding": "binary" }, body: wire.body };
		},
		mic: { over: encryptedEntity, algorithm: "sha256" },
		signed: false,
	},
	{
		quirk: "an encrypted message without smime-type, in the legacy x-pkcs7-mime type",
		reference: "§D6, §D8 / pyas2-lib _decompress_data, OpenAS2 isCompressed",
		build: (ids) =>
			encryptedMessage(certs.dir, encryptedEntity, ourCertPath, ids, {
				contentType: "application/x-pkcs7-mime",
				headers: syncMdnRequest("sha-256"),
			}),
		mic: { over: encryptedEntity, algorithm: "sha256" },
		signed: false,
	},
	{
		quirk: "an unsigned message asking for a sha-384 MIC",
		reference: "§D4 / DG-1Q14 (not a default SHA-1)",
		build: (ids) =>
			encryptedMessage(certs.dir, encryptedEntity, ourCertPath, ids, { headers: syncMdnRequest("sha-384") }),
		mic: { over: encryptedEntity, algorithm: "sha384" },
		signed: false,
	},
];

describe("partner quirks: messages posted to /as2/receive (issue #17, defect 6)", () => {
	for (const [index, row] of MESSAGE_ROWS.entries()) {
		it(`${row.quirk} (${row.reference})`, async () => {
			const { as2Id } = await partner({ mdn_mode: "sync" });
			const ids = { from: as2Id, to: tenantAs2Id, messageId: `quirk-${index}@partner.example` };
			const answer = await post("/as2/receive", row.build(ids));
			expect(answer.status, answer.text).toBe(200);
			expect(answer.text).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r\n/);
			const expectedMic = `${digest(row.mic.algorithm, row.mic.over)}, ${MICALG_NAMES[row.mic.algorithm]}`;
			expect(answer.text).toContain(`Received-Content-MIC: ${expectedMic}\r\n`);
			const inbound = await t.call("GET", "/v1/messages?direction=inbound", { token: owner.token });
			const received = inbound.json.data.find((m: { message_id: string }) => m.message_id === ids.messageId);
			expect(received).toMatchObject({ status: "received", signed: row.signed });
			const payload = await t.app.request(`/v1/messages/${received.id}/payload`, {
				headers: { authorization: `Bearer ${owner.token}` },
			});
			expect(Buffer.from(await payload.arrayBuffer()).toString("latin1")).toBe(PAYLOAD);
		});
	}
});

/** The MIC of our awaiting message: its value, and the same content's digest under SHA-1. */
const OUR_CONTENT = Buffer.from("Content-Type: application/edi-x12\r\n\r\nISA*00~\r\n");
const OUR_MIC_VALUE = digest("sha256", OUR_CONTENT);

interface MdnRow {
	quirk: string;
	reference: string;
	path: "/as2/mdn" | "/as2/receive";
	/** The partner's MDN for our message `originalMessageId`, from `from` to `to`. */
	build: (fields: { from: string; to: string; originalMessageId: string }) => WireMessage;
	/** Expected: our message delivered with its MIC matched (the default), or failed with this code. */
	failsWith?: string;
}

/** A hand-assembled signed MDN (helpers/partner-bytes.ts) with these disposition fields. */
const handMdn =
	(fields: (originalMessageId: string) => string[], options: { reportParams?: string; messageId?: boolean } = {}) =>
	(ids: { from: string; to: string; originalMessageId: string }): WireMessage =>
		handAssembledMdn(certs.dir, fields(ids.originalMessageId), partnerKey, {
			reportParams: options.reportParams,
			headers: {
				"AS2-Version": "1.2",
				"AS2-From": ids.from,
				"AS2-To": ids.to,
				...(options.messageId === false ? {} : { "Message-ID": `<mdn-${ids.originalMessageId}>` }),
			},
		});
const OUR_MIC_FIELD = `Received-Content-MIC: ${OUR_MIC_VALUE}, sha-256`;

const MDN_ROWS: MdnRow[] = [
	{
		quirk: "pyas2-lib: Received-Content-MIC algorithm spelled sha_256",
		reference: "§C2, §D5 / pyas2-lib#15",
		path: "/as2/mdn",
		build: (fields) => pyas2SignedMdn(certs.dir, { ...fields, mic: `${OUR_MIC_VALUE}, sha_256` }, partnerKey),
	},
	{
		quirk: "upper-case SHA256 and no space after the comma in Received-Content-MIC",
		reference: "§C2 / pyas2-lib PR #32; §D7 / DG-1Q14",
		path: "/as2/mdn",
		build: (fields) => pyas2SignedMdn(certs.dir, { ...fields, mic: `${OUR_MIC_VALUE},SHA256` }, partnerKey),
	},
	{
		quirk: "Orderful (axios): a base64 HTTP body of a signed async MDN on /as2/mdn",
		reference: "§C10 / OpenAs2App#299",
		path: "/as2/mdn",
		build: (fields) =>
			base64HttpBody(openas2AsyncMdn(certs.dir, { ...fields, mic: `${OUR_MIC_VALUE}, sha-256` }, partnerKey)),
	},
	{
		quirk: "Orderful (axios): a base64 HTTP body of a signed async MDN on /as2/receive",
		reference: "§C10 / OpenAs2App#299",
		path: "/as2/receive",
		build: (fields) =>
			base64HttpBody(pyas2SignedMdn(certs.dir, { ...fields, mic: `${OUR_MIC_VALUE}, sha-256` }, partnerKey)),
	},
	{
		quirk: "an async MDN with AS2-Version: 1.0",
		reference: "RFC 4130 §6.1",
		path: "/as2/receive",
		build: (fields) => {
			const wire = pyas2SignedMdn(certs.dir, { ...fields, mic: `${OUR_MIC_VALUE}, sha-256` }, partnerKey);
			return { headers: { ...wire.headers, "AS2-Version": "1.0" }, body: wire.body };
		},
	},
	{
		quirk: "OpenText: no Message-ID and no Original-Recipient",
		reference: "§C6, §D7 / django-pyas2#52, #60",
		path: "/as2/mdn",
		build: handMdn(
			(id) => [
				"Final-Recipient: rfc822; PARTNER",
				`Original-Message-ID: <${id}>`,
				"Disposition: automatic-action/MDN-sent-automatically; processed",
				OUR_MIC_FIELD,
			],
			{ messageId: false },
		),
	},
	{
		quirk: "a folded Disposition, ';processed' without a space, blanks before Original-Message-ID",
		reference: "§D7 / DG-1Q14",
		path: "/as2/mdn",
		build: handMdn((id) => [
			`Original-Message-ID:    <${id}>`,
			"Disposition: automatic-action/MDN-sent-automatically;",
			" processed",
			`Received-Content-MIC: ${OUR_MIC_VALUE},sha-256`,
		]),
	},
	{
		quirk: "multipart/report without report-type",
		reference: "§D7 / DG-1Q14",
		path: "/as2/receive",
		build: handMdn(
			(id) => [
				`Original-Message-ID: <${id}>`,
				"Disposition: automatic-action/MDN-sent-automatically; processed",
				OUR_MIC_FIELD,
			],
			{ reportParams: "charset=us-ascii" },
		),
	},
	{
		quirk: "a negative MDN in the right form, processed/error: decryption-failed",
		reference: "§D7 / DG-1Q14 round 3Q13",
		path: "/as2/mdn",
		build: handMdn((id) => [
			`Original-Message-ID: <${id}>`,
			"Disposition: automatic-action/MDN-sent-automatically; processed/error: decryption-failed",
		]),
		failsWith: "DECRYPTION_FAILED",
	},
	{
		quirk: "a negative MDN in the bare form, error: authentication-failed",
		reference: "§D7 / DG-1Q14 round 3Q13",
		path: "/as2/mdn",
		build: handMdn((id) => [
			`Original-Message-ID: <${id}>`,
			"Disposition: automatic-action/MDN-sent-automatically; error: authentication-failed",
		]),
		failsWith: "AUTHENTICATION_FAILED",
	},
	{
		quirk: "a failed disposition without a MIC",
		reference: "§C6 / phase2#126",
		path: "/as2/mdn",
		build: handMdn((id) => [
			`Original-Message-ID: <${id}>`,
			"Disposition: automatic-action/MDN-sent-automatically; failed/Failure: unsupported format",
		]),
		failsWith: "PARTNER_REJECTED",
	},
];

describe("partner quirks: async MDNs for a message awaiting one (issue #17, defect 6)", () => {
	for (const row of MDN_ROWS) {
		it(`${row.quirk} (${row.reference})`, async () => {
			const { id, as2Id } = await partner({ mdn_mode: "async", mdn: { signed: true } });
			const message: MessageRecord = await storeMessage(t, owner, {
				partnerId: id,
				partnerAs2Id: as2Id,
				toAs2Id: as2Id,
				fromAs2Id: tenantAs2Id,
				status: "sent",
				signed: true,
				mdnMode: "async",
				mdnStatus: "pending",
				mic: `${OUR_MIC_VALUE}, sha-256`,
				sentAt: t.clock.now(),
				mdnDeadline: new Date(t.clock.now().getTime() + 3600_000),
			});
			const answer = await post(
				row.path,
				row.build({ from: as2Id, to: tenantAs2Id, originalMessageId: message.messageId }),
			);
			expect(answer, answer.text).toMatchObject({ status: 200, text: "MDN received\n" });
			const detail = (await t.call("GET", `/v1/messages/${message.id}`, { token: owner.token })).json.data;
			if (row.failsWith) {
				expect(detail).toMatchObject({ status: "failed", mdn_status: "received", error_code: row.failsWith });
				expect(detail.mdn_data).toMatchObject({ signed: true, signature_valid: true });
			} else {
				expect(detail).toMatchObject({ status: "delivered", mdn_status: "received", error_code: null });
				expect(detail.mdn_data).toMatchObject({ signed: true, signature_valid: true, mic_matches: true });
			}
		});
	}
});

/**
 * RFC 4130 §7.3.1 asks for the MIC in the first signed-receipt-micalg algorithm the receiver
 * supports; partners that support only SHA-1 (or compute it with the digest our signature
 * used) answer in that algorithm (issue #17, defect 6). Our message goes out for real, to a
 * loopback endpoint, so the MIC the partner returns is computed over the bytes we sent.
 */
describe("partner quirks: an MDN MIC in another algorithm than asked (issue #17, defect 6)", () => {
	let receiver: Receiver;
	let worker: ReturnType<typeof startWorker>;
	let liveKey: string;
	beforeAll(async () => {
		// A session token sends in the test environment (simulated); a live key really sends.
		liveKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			environment: "live",
			permissions: ["*"],
		});
		receiver = await startReceiver(() => 200);
		worker = startWorker(t);
	});
	afterAll(async () => {
		await worker.stop();
		await receiver.close();
	});

	for (const [asked, answered, signDigest] of [
		["sha512", "sha1", "SHA256withRSA"],
		["sha512", "sha256", "SHA256withRSA"],
	] as const) {
		it(`a partner answering our ${asked} request with a ${answered} MIC of what we signed (§D4, §D5 / RFC 4130 §7.3.1)`, async () => {
			const { id, as2Id } = await partner({
				url: receiver.url,
				sign: true,
				sign_algorithm: signDigest,
				mdn_mode: "async",
				mdn: { signed: true, algorithm: asked },
			});
			const before = receiver.requests.length;
			const sent = await t.call("POST", "/v1/messages", {
				token: liveKey,
				body: { partner_id: id, content_type: "application/edi-x12", payload: { content: PAYLOAD } },
			});
			expect(sent.status, sent.text).toBe(202);
			const record = await eventually(async () => {
				const m = await t.store.messages.getById(sent.json.data.id);
				return m && (m.status === "sent" || m.status === "failed") ? m : null;
			}, "the message to be sent");
			expect(record.status, `${record.errorCode} ${record.errorMessage}`).toBe("sent");
			const request = receiver.requests[before]!;
			expect(request.headers["disposition-notification-options"]).toContain("signed-receipt-micalg=optional,sha-512");
			const mic = `${digest(answered, signedContent(request.raw, String(request.headers["content-type"])))}, ${answered}`;
			const mdn = pyas2SignedMdn(
				certs.dir,
				{ from: as2Id, to: tenantAs2Id, originalMessageId: record.messageId, mic },
				partnerKey,
			);
			const answer = await post("/as2/mdn", mdn);
			expect(answer, answer.text).toMatchObject({ status: 200, text: "MDN received\n" });
			const detail = (await t.call("GET", `/v1/messages/${record.id}`, { token: owner.token })).json.data;
			expect(detail, JSON.stringify(detail.error)).toMatchObject({ status: "delivered", mdn_status: "received" });
			expect(detail.mdn_data).toMatchObject({
				mic_matches: true,
				received_content_mic: `${mic.split(", ")[0]}, ${MICALG_NAMES[answered]}`,
			});
		});
	}
});

/** The signed first part of a multipart/signed body, header block and content, as the partner hashes it. */
function signedContent(body: Buffer, contentType: string): Buffer {
	const boundary = /boundary="?([^";]+)"?/.exec(contentType)![1]!;
	const open = body.indexOf(`--${boundary}\r\n`) + boundary.length + 4;
	return body.subarray(open, body.indexOf(`\r\n--${boundary}`, open));
}
