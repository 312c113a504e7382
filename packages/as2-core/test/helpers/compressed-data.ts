import { execFileSync } from "node:child_process";
import { deflateSync, inflateSync } from "node:zlib";

/**
 * RFC 3274 CompressedData built and read by hand with node:zlib and `openssl asn1parse`:
 * the OpenSSL CLI on Debian is built without zlib, so `openssl cms -compress` is unavailable
 * here and this stands in as the independent peer for the compression layer.
 */
const hex = (s: string) => Buffer.from(s, "hex");
const ID_DATA = hex("06092a864886f70d010701");
const ZLIB_ALGORITHM = hex("300d060b2a864886f70d0109100308");
const ID_CT_COMPRESSED_DATA = hex("060b2a864886f70d0109100109");

function length(n: number): Buffer {
	if (n < 0x80) return Buffer.of(n);
	const bytes: number[] = [];
	for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
	return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]) => {
	const body = Buffer.concat(content);
	return Buffer.concat([Buffer.of(tag), length(body.length), body]);
};
/** BER indefinite length, as `openssl cms -stream` writes it. */
const indefinite = (tag: number, ...content: Buffer[]) =>
	Buffer.concat([Buffer.of(tag, 0x80), ...content, Buffer.of(0, 0)]);

export function compressedDataDer(zlib: Uint8Array, options: { ber?: boolean } = {}): Buffer {
	const z = Buffer.from(zlib);
	if (!options.ber) {
		const encap = tlv(0x30, ID_DATA, tlv(0xa0, tlv(0x04, z)));
		return tlv(0x30, ID_CT_COMPRESSED_DATA, tlv(0xa0, tlv(0x30, hex("020100"), ZLIB_ALGORITHM, encap)));
	}
	const segments: Buffer[] = [];
	for (let i = 0; i < z.length; i += 1000) segments.push(tlv(0x04, z.subarray(i, i + 1000)));
	const encap = indefinite(0x30, ID_DATA, indefinite(0xa0, indefinite(0x24, ...segments)));
	return indefinite(
		0x30,
		ID_CT_COMPRESSED_DATA,
		indefinite(0xa0, indefinite(0x30, hex("020100"), ZLIB_ALGORITHM, encap)),
	);
}

export const compressEntity = (entity: Uint8Array, options: { ber?: boolean } = {}) =>
	compressedDataDer(deflateSync(entity), options);

/** Finds the zlib stream with `openssl asn1parse` (the last OCTET STRING) and inflates it. */
export function uncompressWithAsn1parse(derPath: string, der: Buffer): Buffer {
	const listing = execFileSync("openssl", ["asn1parse", "-inform", "DER", "-in", derPath]).toString();
	const lines = listing.split("\n").filter((l) => l.includes("OCTET STRING"));
	const m = /^\s*(\d+):d=\d+\s+hl=(\d+)\s+l=\s*(\d+)/.exec(lines[lines.length - 1] ?? "");
	if (!m) throw new Error(`no OCTET STRING in:\n${listing}`);
	const start = Number(m[1]) + Number(m[2]);
	return inflateSync(der.subarray(start, start + Number(m[3])));
}
