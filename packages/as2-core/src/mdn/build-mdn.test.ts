import { describe, expect, it } from "vitest";
import { parties } from "../../test/helpers/identities.ts";
import { settlesWithinMicrotasks } from "../../test/helpers/microtasks.ts";
import type { MdnRequest } from "../as2/mdn-request.ts";
import type { Mic } from "../as2/mic.ts";
import { type BuildMdnOptions, buildMdn, buildMdnAsync } from "./build-mdn.ts";
import { parseMdn } from "./parse-mdn.ts";

/**
 * buildMdnAsync is buildMdn with the RSA signature made in libuv's thread pool (issue #20): the
 * receiving server answers its other requests while its MDN is signed. A thread-pool job is
 * delivered by the event loop's poll phase, never between microtasks.
 */
const { alice, bob, aliceSigner } = parties();
const mic: Mic = { value: Buffer.alloc(32, 7).toString("base64"), algorithm: "sha256" };

function options(signed: boolean, sign = aliceSigner): BuildMdnOptions {
	const mdnRequest: MdnRequest = { mode: "sync", notificationTo: "as2@bob", signed, micAlgorithms: ["sha256"] };
	return {
		original: { messageId: "theirs@bob", from: "BOB", to: "ALICE", mdnRequest, mic },
		disposition: { type: "processed" },
		sign,
		messageId: "mdn@alice",
		date: new Date("2026-11-29T05:00:00Z"),
	};
}

describe("buildMdnAsync", () => {
	it("builds the MDN buildMdn builds, signed by the same key, and the partner verifies it", async () => {
		const built = await buildMdnAsync(options(true));
		const reference = buildMdn(options(true));
		expect(built.signed).toBe(true);
		expect(built.headers.entries().filter(([name]) => name !== "Content-Type")).toEqual(
			reference.headers.entries().filter(([name]) => name !== "Content-Type"),
		);
		const read = await parseMdn({ headers: built.headers, body: built.body, partnerCertificates: [alice.certDer] });
		const readReference = await parseMdn({
			headers: reference.headers,
			body: reference.body,
			partnerCertificates: [alice.certDer],
		});
		expect(read).toMatchObject({ signed: true, signatureValid: true, originalMessageId: "theirs@bob", mic });
		expect(read.disposition).toEqual(readReference.disposition);
		expect(read.signatureValid).toBe(readReference.signatureValid);
	});

	it("signs off the event loop, and an unsigned MDN is built at once", async () => {
		expect(await settlesWithinMicrotasks(buildMdnAsync(options(true)))).toBe(false);
		const unsigned = buildMdnAsync(options(false));
		expect(await settlesWithinMicrotasks(unsigned)).toBe(true);
		expect((await unsigned).signed).toBe(false);
	});

	it("rejects a key that is not the certificate's with SIGNING_FAILED", async () => {
		const wrong = { privateKey: aliceSigner.privateKey, certificate: bob.certDer };
		await expect(buildMdnAsync(options(true, wrong))).rejects.toMatchObject({ code: "SIGNING_FAILED" });
		expect(() => buildMdn(options(true, wrong))).toThrow(expect.objectContaining({ code: "SIGNING_FAILED" }));
	});
});
