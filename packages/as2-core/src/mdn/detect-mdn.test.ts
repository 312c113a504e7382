import { describe, expect, it } from "vitest";
import { parties } from "../../test/helpers/identities.ts";
import { buildMdn } from "./build-mdn.ts";
import { isMdnEntity } from "./detect-mdn.ts";
import { parseMdn } from "./parse-mdn.ts";

const { alice, aliceSigner } = parties();

/** A signed MDN from alice, its body opened with its own header block as OpenAS2 4.9 does. */
function withOpenAs2Preamble() {
	const mdn = buildMdn({
		original: {
			messageId: "ours@as2kit",
			from: "US",
			to: "ALICE",
			mdnRequest: {
				mode: "async",
				url: "https://us/as2",
				notificationTo: "as2@us",
				signed: true,
				micAlgorithms: ["sha256"],
			},
		},
		disposition: { type: "processed" },
		sign: aliceSigner,
	});
	const contentType = new Map(mdn.headers).get("Content-Type")!;
	const folded = contentType.replace(/; ?boundary=/, "; \r\n\tboundary=");
	const body = Buffer.concat([Buffer.from(`Content-Type: ${folded}\r\n\r\n`, "latin1"), mdn.body]);
	return { headers: mdn.headers, contentType, body: new Uint8Array(body) };
}

async function* oneByteAtATime(bytes: Uint8Array) {
	for (let i = 0; i < bytes.byteLength; i++) yield bytes.subarray(i, i + 1);
}
async function* whole(bytes: Uint8Array) {
	yield bytes;
}
const text = (s: string) => new TextEncoder().encode(s);

describe("isMdnEntity (RFC 4130 §7.4, RFC 2046 §5.1.1)", () => {
	it("OpenAS2 4.9 (issue #17, defect 5): a signed MDN whose preamble repeats its multipart/signed header is an MDN", async () => {
		const { contentType, body } = withOpenAs2Preamble();
		expect(await isMdnEntity(contentType, whole(body))).toBe(true);
		expect(await isMdnEntity(contentType, oneByteAtATime(body))).toBe(true);
	});

	it("Orderful (OpenAs2App#299): a signed MDN in a base64 HTTP body is an MDN once decoded", async () => {
		const { contentType, body } = withOpenAs2Preamble();
		const encoded = text(
			`${(
				Buffer.from(body)
					.toString("base64")
					.match(/.{1,76}/g) ?? []
			).join("\r\n")}\r\n`,
		);
		expect(await isMdnEntity(contentType, oneByteAtATime(encoded), "base64")).toBe(true);
		expect(await isMdnEntity(contentType, whole(encoded), " BASE64 ")).toBe(true);
		expect(await isMdnEntity(contentType, whole(body), "binary")).toBe(true);
		expect(await isMdnEntity(contentType, whole(encoded))).toBe(false);
		expect(await isMdnEntity(contentType, whole(body), "x-unknown")).toBe(false);
	});

	it("takes the first part's Content-Type, not text of the preamble", async () => {
		const type = 'multipart/signed; protocol="application/pkcs7-signature"; boundary="b1"';
		const message =
			"Content-Type: multipart/report\r\n\r\n--b1\r\nContent-Type: application/edifact\r\n\r\nUNB+'\r\n--b1--\r\n";
		expect(await isMdnEntity(type, whole(text(message)))).toBe(false);
		const mdn = "--x\r\n--b1x\r\n\r\n--b1\r\ncontent-type:Multipart/Report; boundary=r\r\n\r\n--r--\r\n--b1--\r\n";
		expect(await isMdnEntity(type, whole(text(mdn)))).toBe(true);
	});

	it("is a multipart/report by its type alone; anything else, or unreadable, is not an MDN", async () => {
		expect(await isMdnEntity("multipart/report; report-type=disposition-notification", whole(text("")))).toBe(true);
		expect(await isMdnEntity(undefined, whole(text("")))).toBe(false);
		expect(await isMdnEntity("application/pkcs7-mime", whole(text("--b1\r\n")))).toBe(false);
		expect(await isMdnEntity("multipart/signed", whole(text("--b1\r\n")))).toBe(false);
		const type = "multipart/signed; boundary=b1";
		expect(await isMdnEntity(type, whole(text("no delimiter at all")))).toBe(false);
		expect(
			await isMdnEntity(type, whole(text(`${"x".repeat(20_000)}\r\n--b1\r\nContent-Type: multipart/report\r\n\r\n`))),
		).toBe(false);
		expect(await isMdnEntity('multipart/signed; boundary=""', whole(text("--\r\n")))).toBe(false);
	});
});

describe("parseMdn with a preamble (issue #17, defect 5)", () => {
	it("OpenAS2 4.9: reads and verifies a signed MDN whose body opens with its own multipart/signed header", async () => {
		const { headers, body } = withOpenAs2Preamble();
		const mdn = await parseMdn({ headers, body, partnerCertificates: [alice.certDer] });
		expect(mdn).toMatchObject({ originalMessageId: "ours@as2kit", positive: true, signed: true, signatureValid: true });
	});
});
