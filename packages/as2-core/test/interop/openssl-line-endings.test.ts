import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMic } from "../../src/as2/mic.ts";
import { type UnpackOptions, unpack, unpackBuffered } from "../../src/as2/unpack.ts";
import { collect } from "../../src/bytes/index.ts";
import { type TestIdentity, testIdentity } from "../helpers/certs.ts";
import { type DamageOptions, lineEndingDamaged, micOf } from "../helpers/line-ending-fixtures.ts";
import { scratch } from "../helpers/openssl.ts";
import { streamed } from "../helpers/paths.ts";

/**
 * Issue #17 defect 3: partners (mendelson, IBM Sterling captures; phase2#12; pyas2-lib PR #8; as2-anchors §C.3, §D1)
 * whose gateway changes line ends between signing and delivery. Fixtures: `openssl cms -sign
 * -binary` over one form, the body delivered in the other (helpers/line-ending-fixtures.ts).
 * A signature that verifies over a repaired form is accepted, the form is reported, and the
 * MIC is the one over what was signed (RFC 4130 §7.3.1); nothing else verifies.
 */
let alice: TestIdentity; // the partner who signs
let carol: TestIdentity; // not the partner
const work = scratch("as2kit-lineends-");

beforeAll(() => {
	alice = testIdentity("alice");
	carol = testIdentity("carol");
});
afterAll(() => work.cleanup());

function damaged(options: Omit<DamageOptions, "keyPath" | "certPath" | "dir">, signer = alice) {
	return lineEndingDamaged({ ...options, keyPath: signer.keyPath, certPath: signer.certPath, dir: work.dir });
}

/** Both readers: the buffered one (small bodies) and the streaming one, in small chunks. */
const READERS = {
	buffered: (body: Buffer) => new Uint8Array(body),
	streaming: (body: Buffer) => streamed(new Uint8Array(body), 7),
};

async function read(fixture: ReturnType<typeof damaged>, reader: keyof typeof READERS) {
	const options: UnpackOptions = {
		headers: fixture.headers,
		body: READERS[reader](fixture.body),
		partnerCertificates: [alice.certDer],
		requireSigned: true,
	};
	const message = await unpack(options);
	const payload = Buffer.from(await collect(message.payload));
	return { payload, report: await message.complete() };
}

async function refusal(fixture: ReturnType<typeof damaged>, reader: keyof typeof READERS): Promise<string> {
	try {
		await read(fixture, reader);
		return "accepted";
	} catch (error) {
		return (error as { code?: string }).code ?? String(error);
	}
}

describe("signatures over line-ending-damaged content (openssl-signed fixtures)", () => {
	for (const reader of Object.keys(READERS) as Array<keyof typeof READERS>) {
		it(`${reader}: signed in CRLF form, delivered with LF → verifies as crlf, MIC over the signed bytes`, async () => {
			const fixture = damaged({ signedForm: "crlf", deliveredForm: "lf" });
			const { payload, report } = await read(fixture, reader);
			expect(report.signatureVariant).toBe("crlf");
			expect(formatMic(report.mic)).toBe(micOf(fixture.signed));
			expect(payload.equals(fixture.deliveredContent)).toBe(true);
		});

		it(`${reader}: signed in LF form (text), delivered with CRLF → verifies as lf, MIC over the signed bytes`, async () => {
			const fixture = damaged({ signedForm: "lf", deliveredForm: "crlf" });
			const { payload, report } = await read(fixture, reader);
			expect(report.signatureVariant).toBe("lf");
			expect(formatMic(report.mic)).toBe(micOf(fixture.signed));
			expect(payload.equals(fixture.deliveredContent)).toBe(true);
		});

		it(`${reader}: undamaged messages verify as_received, in either form`, async () => {
			for (const form of ["crlf", "lf"] as const) {
				const fixture = damaged({ signedForm: form, deliveredForm: form });
				const { report } = await read(fixture, reader);
				expect(report.signatureVariant).toBe("as_received");
				expect(formatMic(report.mic)).toBe(micOf(fixture.signed));
			}
		});

		it(`${reader}: tampered content verifies under no form: INTEGRITY_CHECK_FAILED`, async () => {
			expect(await refusal(damaged({ signedForm: "crlf", deliveredForm: "lf", tamper: true }), reader)).toBe(
				"INTEGRITY_CHECK_FAILED",
			);
			expect(await refusal(damaged({ signedForm: "lf", deliveredForm: "crlf", tamper: true }), reader)).toBe(
				"INTEGRITY_CHECK_FAILED",
			);
		});

		it(`${reader}: signed by someone else and damaged: AUTHENTICATION_FAILED`, async () => {
			expect(await refusal(damaged({ signedForm: "crlf", deliveredForm: "lf" }, carol), reader)).toBe(
				"AUTHENTICATION_FAILED",
			);
		});

		it(`${reader}: binary content is not tried in LF form (its CR LF pairs are data)`, async () => {
			const fixture = damaged({ signedForm: "lf", deliveredForm: "crlf", contentType: "application/octet-stream" });
			expect(await refusal(fixture, reader)).toBe("INTEGRITY_CHECK_FAILED");
			// The canonical form is tried for any content (RFC 5751 §3.1.1 canonicalizes before signing).
			const canonical = damaged({ signedForm: "crlf", deliveredForm: "lf", contentType: "application/octet-stream" });
			expect((await read(canonical, reader)).report.signatureVariant).toBe("crlf");
		});
	}

	it("the buffered reader gives the same verdict as the streaming one", async () => {
		const fixture = damaged({ signedForm: "crlf", deliveredForm: "lf" });
		const buffered = await unpackBuffered({
			headers: fixture.headers,
			body: new Uint8Array(fixture.body),
			partnerCertificates: [alice.certDer],
		});
		expect(buffered).toBeDefined();
		await collect(buffered!.payload);
		expect((await buffered!.complete()).signatureVariant).toBe("crlf");
	});
});
