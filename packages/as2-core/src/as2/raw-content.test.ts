import { afterAll, describe, expect, it } from "vitest";
import { compressEntity } from "../../test/helpers/compressed-data.ts";
import { parties } from "../../test/helpers/identities.ts";
import { openssl, scratch } from "../../test/helpers/openssl.ts";
import { collect } from "../bytes/index.ts";
import { startsMimeEntity } from "./raw-content.ts";
import { unpack, unpackBuffered } from "./unpack.ts";

const { bob, bobIdentity } = parties();
const tmp = scratch("as2kit-raw-content-");
afterAll(() => tmp.cleanup());

const EDIFACT =
	"UNA:+.? 'UNB+UNOA:2+SENDER+RECEIVER+261127:0500+1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'UNT+3+1'UNZ+1+1'";
const bytes = (s: string) => new TextEncoder().encode(s);

describe("startsMimeEntity: the first line decides (issue #17, defect 4)", () => {
	it.each([
		["Content-Type: application/edifact\r\n", true],
		["content-type:application/edifact\r\n", true],
		["MIME-Version:1.0\n", true],
		["X-Custom: a\r\n", true],
		["X-Empty:\r\n", true],
		["\r\nbody after no headers", true],
		["\nbody after no headers", true],
		["", true],
		[EDIFACT, false],
		["UNB+UNOA:2+SENDER+RECEIVER'", false],
		["ISA*00*          *00*          *ZZ*SENDER~", false],
		['<?xml version="1.0"?>\r\n<order/>', false],
		[" Content-Type: folded\r\n", false],
		["UNA:+.? '\r\nUNB+UNOA:2'\r\n", false],
	])("%j begins a MIME entity: %s", (head, expected) => {
		expect(startsMimeEntity(bytes(head))).toBe(expected);
	});
});

/** What mendelson sends (issue #17, defect 4): `openssl cms -encrypt -des3` over the bare file. */
function encryptedRaw(content: string | Uint8Array, name: string) {
	const input = tmp.file(`${name}.in`, content);
	const der = openssl(["cms", "-encrypt", "-des3", "-binary", "-in", input, "-outform", "DER", bob.certPath]);
	return {
		headers: {
			"AS2-From": "MENDELSON",
			"AS2-To": "BOB",
			"Message-ID": `<${name}@mendelson>`,
			"Content-Type": 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
		},
		body: new Uint8Array(der),
	};
}

async function payloadOf(message: Awaited<ReturnType<typeof unpack>>) {
	const payload = await collect(message.payload, 1 << 24, "payload");
	await message.complete();
	return Buffer.from(payload);
}

describe("encrypted content without MIME headers (mendelson, unsigned 3DES)", () => {
	it("is the payload, application/octet-stream, on the buffered and the streaming path", async () => {
		const wire = encryptedRaw(EDIFACT, "small");
		const buffered = await unpackBuffered({ ...wire, identities: [bobIdentity] });
		expect(buffered).toBeDefined();
		expect(buffered!.contentType).toBe("application/octet-stream");
		expect((await payloadOf(buffered!)).toString("latin1")).toBe(EDIFACT);
		const streamed = await unpack({
			...wire,
			body: (async function* () {
				for (let i = 0; i < wire.body.byteLength; i += 7) yield wire.body.subarray(i, i + 7);
			})(),
			identities: [bobIdentity],
		});
		expect(streamed.contentType).toBe("application/octet-stream");
		expect((await payloadOf(streamed)).toString("latin1")).toBe(EDIFACT);
		expect(streamed.layers).toEqual([expect.objectContaining({ kind: "encrypted", algorithm: "3des" })]);
	});

	it("streams a large raw payload and returns the MIC over the decrypted content (RFC 4130 §7.3.1)", async () => {
		const large = Buffer.from(EDIFACT.repeat(5000), "latin1");
		const wire = encryptedRaw(large, "large");
		const message = await unpack({ ...wire, identities: [bobIdentity] });
		expect(await payloadOf(message)).toEqual(large);
		const { mic } = await message.complete();
		expect(mic).toEqual({
			value: openssl(["dgst", "-sha256", "-binary"], large).toString("base64"),
			algorithm: "sha256",
		});
	});

	it("keeps refusing a MIME entity with a malformed header further down: MALFORMED_MIME", async () => {
		const wire = encryptedRaw("Content-Type: application/edifact\r\nBGM+220+PO1+9'\r\n\r\nUNB+'", "malformed");
		await expect(unpack({ ...wire, identities: [bobIdentity] }).then(payloadOf)).rejects.toMatchObject({
			code: "MALFORMED_MIME",
		});
	});

	it("a decrypted MIME entity is still read as one", async () => {
		const wire = encryptedRaw(`Content-Type: application/edifact\r\n\r\n${EDIFACT}`, "entity");
		const message = await unpack({ ...wire, identities: [bobIdentity] });
		expect(message.contentType).toBe("application/edifact");
		expect((await payloadOf(message)).toString("latin1")).toBe(EDIFACT);
	});
});

describe("compressed content without MIME headers", () => {
	it("is the payload too (CompressedData over the bare file; this OpenSSL has no zlib)", async () => {
		const der = compressEntity(bytes(EDIFACT));
		const message = await unpack({
			headers: {
				"AS2-From": "PARTNER",
				"AS2-To": "BOB",
				"Message-ID": "<compressed-raw@partner>",
				"Content-Type": "application/pkcs7-mime; smime-type=compressed-data",
			},
			body: new Uint8Array(der),
		});
		expect(message.contentType).toBe("application/octet-stream");
		expect((await payloadOf(message)).toString("latin1")).toBe(EDIFACT);
	});
});
