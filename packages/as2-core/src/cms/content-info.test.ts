import { describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { openssl } from "../../test/helpers/openssl.ts";
import { BerReader, derSequence } from "../asn1/index.ts";
import { ByteReader, type Chunks, chunksOf, collect, equalBytes, sourceFromBytes, utf8 } from "../bytes/index.ts";
import { compress } from "./compressed-data.ts";
import {
	contentInfoPrefix,
	contentInfoSize,
	id_ct_authEnvelopedData,
	id_ct_compressedData,
	id_data,
	oidToContentKind,
	peekCmsContentType,
	readContentInfoEnd,
	readContentInfoStart,
} from "./content-info.ts";

const bob = testIdentity("bob");
const data = utf8("hello, AS2\r\n");

async function* byteByByte(bytes: Uint8Array): Chunks {
	for (let i = 0; i < bytes.byteLength; i++) yield bytes.subarray(i, i + 1);
}

describe("peekCmsContentType", () => {
	it("names each content type OpenSSL and we produce, DER or BER, without consuming", async () => {
		const cases: Array<[Uint8Array, string]> = [
			[openssl(["cms", "-encrypt", "-binary", "-outform", "DER", "-aes128", bob.certPath], data), "enveloped-data"],
			[
				openssl(["cms", "-encrypt", "-binary", "-outform", "DER", "-stream", "-aes128", bob.certPath], data),
				"enveloped-data",
			],
			[
				openssl(["cms", "-encrypt", "-binary", "-outform", "DER", "-aes-256-gcm", bob.certPath], data),
				"auth-enveloped-data",
			],
			[
				openssl(
					["cms", "-sign", "-binary", "-outform", "DER", "-nodetach", "-signer", bob.certPath, "-inkey", bob.keyPath],
					data,
				),
				"signed-data",
			],
			[openssl(["cms", "-data_create", "-binary", "-outform", "DER"], data), "data"],
			[await collect((await compress(sourceFromBytes(data))).open()), "compressed-data"],
		];
		for (const [der, kind] of cases) {
			const reader = new ByteReader(byteByByte(new Uint8Array(der)));
			expect(await peekCmsContentType(reader)).toBe(kind);
			expect(reader.position).toBe(0);
			expect(equalBytes(await collect(reader.rest()), der)).toBe(true);
		}
	});

	it("is undefined for what is not a ContentInfo of a known type", async () => {
		for (const bytes of [
			new Uint8Array(0),
			utf8("Content-Type: text/plain\r\n\r\nhi"),
			derSequence(Uint8Array.of(2, 1, 0)),
			Uint8Array.of(0x30, 0x80, 0x06, 0x03, 0x2a, 0x03, 0x04),
			Uint8Array.of(0x30, 0x80, 0x06, 0x09, 0x2a, 0x86),
			Uint8Array.of(0x30, 0x89),
		]) {
			expect(await peekCmsContentType(new ByteReader(chunksOf(bytes)))).toBeUndefined();
		}
	});
});

describe("ContentInfo framing", () => {
	it("maps OIDs to kinds", () => {
		expect(oidToContentKind(id_ct_compressedData)).toBe("compressed-data");
		expect(oidToContentKind(id_ct_authEnvelopedData)).toBe("auth-enveloped-data");
		expect(oidToContentKind("1.2.3")).toBeUndefined();
	});

	it("writes a prefix whose declared sizes openssl accepts and reads it back", async () => {
		const inner = derSequence(Uint8Array.of(2, 1, 0));
		const der = new Uint8Array([...contentInfoPrefix(id_data, inner.byteLength), ...inner]);
		expect(der.byteLength).toBe(contentInfoSize(id_data, inner.byteLength));
		expect(openssl(["asn1parse", "-inform", "DER"], der).toString()).toContain("pkcs7-data");
		const ber = new BerReader(new ByteReader(chunksOf(der)));
		expect(await readContentInfoStart(ber)).toEqual({ oid: id_data, kind: "data" });
		await ber.skipElement();
		await readContentInfoEnd(ber);
		expect(await ber.input.atEnd()).toBe(true);
	});
});
