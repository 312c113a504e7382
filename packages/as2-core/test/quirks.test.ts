import { describe, expect, it } from "vitest";
import { parseMicalg } from "../src/algorithms.ts";
import { parseAs2Id } from "../src/as2/as2-id.ts";
import { formatNotificationOptions, parseNotificationOptions } from "../src/as2/notification-options.ts";
import { pack } from "../src/as2/pack.ts";
import { buildMdn, parseDisposition, parseMdn } from "../src/mdn/index.ts";
import { parties } from "./helpers/identities.ts";
import { PAYLOAD, packed, received, withHeader } from "./helpers/messages.ts";

/**
 * Regression tests named after the partner quirks of research/as2-anchors.md §C and §D:
 * strict in what we send, tolerant in what we accept.
 */
const { aliceSigner, bob, bobIdentity } = parties();
const signed = () => packed({ sign: { ...aliceSigner, digest: "sha256" } });

describe("partner quirks (as2-anchors §C, §D)", () => {
	it("§D5 / phase2#18, #75, pyas2-lib#15, PR #32, as2-server#18: every micalg spelling is understood", () => {
		for (const [spelling, algorithm] of [
			["sha1", "sha1"],
			["SHA1", "sha1"],
			["sha-1", "sha1"],
			["SHA", "sha1"],
			["sha256", "sha256"],
			["SHA256", "sha256"],
			["sha-256", "sha256"],
			["sha_256", "sha256"],
			["sha2_256", "sha256"],
			["sha2-256", "sha256"],
			["SHA-384", "sha384"],
			["sha512", "sha512"],
			["2.16.840.1.101.3.4.2.1", "sha256"],
		] as const) {
			expect(parseMicalg(spelling), spelling).toBe(algorithm);
		}
		expect(parseMicalg("md5")).toBeUndefined();
	});

	it("§D5: we emit RFC 5751 micalg names", async () => {
		const m = await packed({ sign: { ...aliceSigner, digest: "sha384" } });
		expect(new Map(m.headers).get("Content-Type")).toMatch(/micalg=sha-384/);
	});

	it("§D5 / IBM Sterling sb2bi fixture: upper-case micalg=SHA1 verifies", async () => {
		const m = await packed({ sign: { ...aliceSigner, digest: "sha1" } });
		const headers = m.headers.map(([n, v]) => [n, v.replace("micalg=sha-1", "micalg=SHA1")] as [string, string]);
		const r = await received(headers, m.body);
		expect(r.report.signature?.digest).toBe("sha1");
	});

	it("§D6: multipart/signed without micalg still verifies (every digest computed)", async () => {
		const m = await signed();
		const headers = m.headers.map(([n, v]) => [n, v.replace(/; ?micalg=[^;]+/, "")] as [string, string]);
		const r = await received(headers, m.body);
		expect(r.report.signature?.digest).toBe("sha256");
	});

	it("§D5 / DG-1Q14: the first algorithm of signed-receipt-micalg is used for the MIC", async () => {
		const m = await signed();
		const headers = withHeader(
			m.headers,
			"Disposition-Notification-Options",
			"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-512, sha-256",
		);
		const withDnt = withHeader(headers, "Disposition-Notification-To", "alice@example.com");
		const r = await received(withDnt, m.body);
		expect(r.report.mic.algorithm).toBe("sha512");
	});

	it("§D4 / DG-1Q14: an unsigned message with a signed MDN requested uses the requested MIC algorithm", async () => {
		const m = await packed({
			encrypt: { certificates: [bob.certDer], algorithm: "aes128" },
			mdn: { mode: "sync", signed: ["sha384"] },
		});
		const r = await received(m.headers, m.body);
		expect(r.report.mic).toEqual(m.mic);
		expect(m.mic.algorithm).toBe("sha384");
	});

	it("§D6 / pyas2-lib 1.1.0: legacy application/x-pkcs7-* media types are read", async () => {
		const m = await packed({
			sign: { ...aliceSigner, digest: "sha256" },
			encrypt: { certificates: [bob.certDer], algorithm: "aes128" },
		});
		const headers = m.headers.map(
			([n, v]) => [n, v.replace("application/pkcs7-mime", "application/x-pkcs7-mime")] as [string, string],
		);
		const r = await received(headers, m.body);
		expect(Buffer.from(r.payload)).toEqual(Buffer.from(PAYLOAD));
	});

	it("§D8: the layer is detected from the CMS content type, smime-type not required", async () => {
		for (const options of [
			{ compress: "before-sign" as const },
			{ encrypt: { certificates: [bob.certDer], algorithm: "aes256" as const } },
		]) {
			const m = await packed(options);
			const headers = withHeader(m.headers, "Content-Type", "application/pkcs7-mime");
			const r = await received(headers, m.body);
			expect(Buffer.from(r.payload)).toEqual(Buffer.from(PAYLOAD));
		}
	});

	it("§C10 / OpenAs2App#299: Content-Transfer-Encoding: base64 on the HTTP request is honoured", async () => {
		const m = await packed({ encrypt: { certificates: [bob.certDer], algorithm: "3des" } });
		const headers = withHeader(m.headers, "Content-Transfer-Encoding", "base64");
		const r = await received(headers, Buffer.from(m.body.toString("base64").replace(/.{76}/g, "$&\r\n")));
		expect(Buffer.from(r.payload)).toEqual(Buffer.from(PAYLOAD));
	});

	it("§D1 / DG-1Q14: a signature part with LF-only base64 lines verifies", async () => {
		const m = await signed();
		const text = m.body.toString("latin1");
		const start = text.indexOf("\r\n\r\n", text.indexOf("application/pkcs7-signature")) + 4;
		const end = text.lastIndexOf("\r\n--");
		const body = Buffer.from(
			text.slice(0, start) + text.slice(start, end).replace(/\r\n/g, "\n") + text.slice(end),
			"latin1",
		);
		const r = await received(m.headers, body);
		expect(r.report.signature).toBeDefined();
	});

	it("§D11: a non-empty epilogue after the final boundary is ignored", async () => {
		const m = await signed();
		const r = await received(m.headers, Buffer.concat([m.body, Buffer.from("this is the epilogue\r\n")]));
		expect(Buffer.from(r.payload)).toEqual(Buffer.from(PAYLOAD));
	});

	it("§C1 / phase2#68, #140: both compression orders are read and the MIC covers what was signed", async () => {
		for (const compress of ["before-sign", "after-sign"] as const) {
			const m = await packed({ sign: { ...aliceSigner, digest: "sha256" }, compress });
			const r = await received(m.headers, m.body);
			expect(r.report.mic, compress).toEqual(m.mic);
		}
	});

	it("§D12: AS2 ids with spaces and specials are quoted on output and read back", async () => {
		const message = await pack({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			from: 'ACME "EU" Ltd',
			to: "BOB [2]",
		});
		expect(message.headers.get("AS2-From")).toBe('"ACME \\"EU\\" Ltd"');
		expect(parseAs2Id(message.headers.get("AS2-From"))).toBe('ACME "EU" Ltd');
		expect(parseAs2Id(message.headers.get("AS2-To"))).toBe("BOB [2]");
	});

	it("§D7 / §D11: outgoing headers are never folded", async () => {
		const message = await pack({
			payload: PAYLOAD,
			contentType: "application/edi-x12",
			from: "ALICE",
			to: "BOB",
			subject: `a very long subject ${"x".repeat(300)}\r\nInjected: header`,
			sign: { ...aliceSigner, digest: "sha256" },
			mdn: { mode: "async", url: "https://alice.example.com/as2/mdn", signed: ["sha256", "sha1"] },
		});
		for (const [, value] of message.headers) expect(value).not.toMatch(/[\r\n]/);
		expect(message.headers.get("Disposition-Notification-Options")).toBe(
			"signed-receipt-protocol=optional,pkcs7-signature; signed-receipt-micalg=optional,sha-256,sha-1",
		);
		expect(message.headers.get("Receipt-Delivery-Option")).toBe("https://alice.example.com/as2/mdn");
		expect(formatNotificationOptions(["sha256"])).toBe(
			"signed-receipt-protocol=optional,pkcs7-signature; signed-receipt-micalg=optional,sha-256",
		);
		expect(
			parseNotificationOptions(
				" signed-receipt-micalg = required , SHA_256 ;signed-receipt-protocol=required,pkcs7-signature",
			),
		).toEqual({
			signedReceipt: true,
			signedReceiptRequired: true,
			micAlgorithms: ["sha256"],
		});
	});

	it("§D13: the filename travels in Content-Disposition", async () => {
		const m = await packed({ filename: "order 42.x12" });
		expect(new Map(m.headers).get("Content-Disposition")).toBe('attachment; filename="order 42.x12"');
		const r = await received(m.headers, m.body);
		expect(r.message.filename).toBe("order 42.x12");
	});

	it("a received filename is its last path segment, without control characters (RFC 2183 §2.3, §5)", async () => {
		const m = await packed({ filename: "po.x12" });
		const headers = m.headers.map(([name, value]): [string, string] =>
			name === "Content-Disposition" ? [name, 'attachment; filename="../../outbox/po%00.x12"'] : [name, value],
		);
		const encoded = headers.map(([name, value]): [string, string] =>
			name === "Content-Disposition"
				? [name, "attachment; filename*=UTF-8''..%2F..%2Foutbox%2Fpo%00.x12"]
				: [name, value],
		);
		expect((await received(headers, m.body)).message.filename).toBe("po%00.x12");
		expect((await received(encoded, m.body)).message.filename).toBe("po\ufffd.x12");
	});

	it("§C5 / pyas2-lib#76, OpenAS2 HowTo §17.4: IBM Sterling mode sends no signed attributes and is still read", async () => {
		const m = await packed({ sign: { ...aliceSigner, digest: "sha256", signedAttributes: false } });
		const r = await received(m.headers, m.body);
		expect(r.report.signature?.hasSignedAttributes).toBe(false);
		expect(r.report.mic).toEqual(m.mic);
	});
});

describe("MDN quirks (as2-anchors §C6, §D7)", () => {
	async function mdnFrom(fields: string, extraHeaders: Record<string, string> = {}) {
		const body = Buffer.from(
			`--b\r\nContent-Type: text/plain\r\n\r\nreceived\r\n--b\r\nContent-Type: message/disposition-notification\r\n\r\n${fields}\r\n--b--\r\n`,
		);
		return parseMdn({
			headers: {
				"Content-Type": 'multipart/report; report-type=disposition-notification; boundary="b"',
				...extraHeaders,
			},
			body,
		});
	}

	it("django-pyas2#52, #60: no Original-Recipient and no Message-ID", async () => {
		const mdn = await mdnFrom(
			"Final-Recipient: rfc822; BOB\r\nOriginal-Message-ID: <m1@x>\r\nDisposition: automatic-action/MDN-sent-automatically; processed",
		);
		expect(mdn.originalMessageId).toBe("m1@x");
		expect(mdn.messageId).toBeUndefined();
		expect(mdn.originalRecipient).toBeUndefined();
		expect(mdn.positive).toBe(true);
	});

	it("DG-1Q14: Received-Content-MIC without a space, folded fields, ';processed' without a space", async () => {
		const mdn = await mdnFrom(
			"Original-Message-ID:   <m2@x>\r\nDisposition: automatic-action/MDN-sent-automatically;\r\n processed\r\nReceived-Content-MIC: abcd+/==,SHA256",
		);
		expect(mdn.mic).toEqual({ value: "abcd+/==", algorithm: "sha256" });
		expect(mdn.disposition.type).toBe("processed");
	});

	it("DG-1Q14 3Q13: error dispositions in the right and the bare form", () => {
		expect(
			parseDisposition("automatic-action/MDN-sent-automatically; processed/error: decryption-failed"),
		).toMatchObject({
			type: "processed",
			modifier: "error",
			detail: "decryption-failed",
		});
		expect(parseDisposition("automatic-action/MDN-sent-automatically; error: authentication-failed")).toMatchObject({
			type: "processed",
			modifier: "error",
			detail: "authentication-failed",
		});
		expect(
			parseDisposition("automatic-action/MDN-sent-automatically; failed/Failure: unsupported format"),
		).toMatchObject({
			type: "failed",
			modifier: "failure",
		});
	});

	it("DG-1Q14: report-type missing is tolerated", async () => {
		const body = Buffer.from(
			"--b\r\nContent-Type: message/disposition-notification\r\n\r\nOriginal-Message-ID: <m3@x>\r\nDisposition: automatic-action/MDN-sent-automatically; processed\r\n--b--\r\n",
		);
		const mdn = await parseMdn({ headers: { "Content-Type": 'multipart/report; boundary="b"' }, body });
		expect(mdn.originalMessageId).toBe("m3@x");
	});

	it("a signed MDN we build verifies, matches by Original-Message-ID and carries the MIC", async () => {
		const m = await signed();
		const built = buildMdn({
			original: {
				messageId: m.messageId,
				from: "ALICE",
				to: "BOB",
				mdnRequest: { mode: "sync", notificationTo: "x", signed: true, micAlgorithms: ["sha256"] },
				mic: m.mic,
			},
			disposition: { type: "processed" },
			sign: { privateKey: bobIdentity.privateKey, certificate: bob.certDer },
		});
		const mdn = await parseMdn({ headers: built.headers, body: built.body, partnerCertificates: [bob.certDer] });
		expect(mdn).toMatchObject({
			signed: true,
			signatureValid: true,
			originalMessageId: m.messageId,
			mic: m.mic,
			positive: true,
		});
		for (const [, value] of built.headers) expect(value).not.toMatch(/[\r\n]/);
		const text = Buffer.from(built.body).toString("latin1");
		expect(text).toContain("Content-Type: message/disposition-notification");
		expect(text).toContain(`Original-Message-ID: <${m.messageId}>`);
	});
});
