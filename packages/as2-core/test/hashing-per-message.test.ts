import crypto, { createHash } from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { type PackOptions, pack } from "../src/as2/pack.ts";
import { unpack } from "../src/as2/unpack.ts";
import { collect } from "../src/bytes/index.ts";
import { parties } from "./helpers/identities.ts";

/**
 * How many bytes a received message costs in hashing (issue #20): each byte of the signed
 * content once per digest algorithm, as the MIC (RFC 4130 §7.3.1) and the signature's
 * message digest (RFC 5652 §5.4) are the same hash. Counted at node:crypto's Hash and at its
 * one-shot `hash()`.
 */
const { alice, bob, aliceSigner, bobIdentity } = parties();
const hashPrototype = Object.getPrototypeOf(createHash("sha256")) as { update: (data: Uint8Array) => unknown };
const originalUpdate = hashPrototype.update;
const originalHash = crypto.hash;
let hashed = 0;

function countHashing(): void {
	hashPrototype.update = function (this: unknown, data: Uint8Array) {
		hashed += data.byteLength;
		return originalUpdate.call(this, data);
	};
	crypto.hash = ((algorithm: string, data: Uint8Array, encoding: "buffer") => {
		hashed += data.byteLength;
		return originalHash(algorithm, data, encoding);
	}) as typeof crypto.hash;
	syncBuiltinESMExports();
}

function stopCounting(): void {
	hashPrototype.update = originalUpdate;
	crypto.hash = originalHash;
	syncBuiltinESMExports();
}

afterEach(stopCounting);

async function bytesHashedReceiving(
	options: Omit<PackOptions, "payload" | "contentType" | "from" | "to">,
	alterHeaders: (headers: Array<[string, string]>) => Array<[string, string]> = (headers) => headers,
) {
	// Binary content with line breaks: CR LF in every header block, bare LF and CR LF in the data.
	const payload = new Uint8Array(20_000).map((_, i) => (i % 50 === 49 ? 0x0a : i % 97 === 0 ? 0x0d : 0x41 + (i % 26)));
	const message = await pack({ ...options, payload, contentType: "application/octet-stream", from: "A", to: "B" });
	const body = await collect(message.body.open());
	hashed = 0;
	countHashing();
	const received = await unpack({
		headers: alterHeaders([...message.headers]),
		body,
		identities: [bobIdentity],
		partnerCertificates: [alice.certDer],
	});
	expect(Buffer.from(await collect(received.payload)).equals(Buffer.from(payload))).toBe(true);
	expect((await received.complete()).mic).toEqual(await message.mic());
	stopCounting();
	return { hashed, payload: payload.byteLength };
}

describe("bytes hashed per received message", () => {
	it("signed binary content is hashed as received only, not also in its line-ending forms", async () => {
		const { hashed, payload } = await bytesHashedReceiving({ sign: { ...aliceSigner, digest: "sha256" } });
		expect(hashed).toBeGreaterThanOrEqual(payload);
		expect(hashed).toBeLessThan(payload + 1024);
	});

	it("signed then encrypted: the decrypted entity is not hashed for a MIC the signature replaces", async () => {
		const { hashed, payload } = await bytesHashedReceiving({
			sign: { ...aliceSigner, digest: "sha256" },
			encrypt: { certificates: [bob.certDer], algorithm: "aes256" },
		});
		expect(hashed).toBeGreaterThanOrEqual(payload);
		expect(hashed).toBeLessThan(payload + 1024);
	});

	it("encrypted without a signature: the MIC is over the decrypted entity, hashed once", async () => {
		const { hashed, payload } = await bytesHashedReceiving({
			encrypt: { certificates: [bob.certDer], algorithm: "aes256" },
		});
		expect(hashed).toBeGreaterThanOrEqual(payload);
		expect(hashed).toBeLessThan(payload + 1024);
	});

	it("a multipart/signed without micalg (as2-anchors §D6) hashes its part for the algorithms used, not all four", async () => {
		const withoutMicalg = (headers: Array<[string, string]>) =>
			headers.map(([name, value]): [string, string] =>
				name.toLowerCase() === "content-type" ? [name, value.replace(/;\s*micalg=[^;]*/i, "")] : [name, value],
			);
		const { hashed, payload } = await bytesHashedReceiving(
			{ sign: { ...aliceSigner, digest: "sha256" } },
			withoutMicalg,
		);
		// The signature's sha256, which is also the MIC's: once (four times before, one per algorithm).
		expect(hashed).toBeGreaterThanOrEqual(payload);
		expect(hashed).toBeLessThan(payload + 1024);
	});
});
