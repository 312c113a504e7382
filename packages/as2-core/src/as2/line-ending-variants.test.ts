import { describe, expect, it } from "vitest";
import type { DigestAlgorithm } from "../algorithms.ts";
import { createDigest, type Digest, digestBytes } from "../crypto/index.ts";
import { LineEndingDigests } from "./line-ending-variants.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const sha256 = (text: string) => Buffer.from(digestBytes("sha256", bytes(text))).toString("hex");
const hex = (digests: Map<DigestAlgorithm, Digest> | undefined) =>
	digests ? Buffer.from(digests.get("sha256")!.digest()).toString("hex") : undefined;

/** Feeds `text` cut at `cuts` and answers each form's SHA-256 (undefined: the same as received). */
function run(text: string, cuts: number[], isText = true) {
	const tracker = new LineEndingDigests(new Map([["sha256", createDigest("sha256")]]));
	let from = 0;
	for (const cut of [...cuts, text.length]) {
		tracker.update(bytes(text.slice(from, cut)));
		from = cut;
	}
	tracker.end();
	tracker.setText(isText);
	const repairs = new Map(tracker.repairs().map((r) => [r.variant, r.digests]));
	return { asReceived: hex(tracker.asReceived), crlf: hex(repairs.get("crlf")), lf: hex(repairs.get("lf")) };
}

const SAMPLES = ["a\r\nb\nc\r\n\r\nd\r", "\n\r\n\r\r\n\n", "no line ends", "\r", "\n", "x\r\r\ny\n", ""];

describe("LineEndingDigests", () => {
	it("hashes the bytes as received, with bare LF as CRLF, and with CRLF as LF, wherever chunks are cut", () => {
		for (const text of SAMPLES) {
			const expected = {
				asReceived: sha256(text),
				crlf: text.replace(/(^|[^\r])\n/g, "$1\r\n").replace(/(^|[^\r])\n/g, "$1\r\n"),
				lf: text.replace(/\r\n/g, "\n"),
			};
			for (let cut = 0; cut <= text.length; cut++) {
				for (const cuts of [[cut], [cut, Math.min(cut + 1, text.length)], [...Array(text.length).keys()]]) {
					const got = run(text, cuts);
					expect(got.asReceived, JSON.stringify({ text, cuts })).toBe(expected.asReceived);
					expect(got.crlf ?? got.asReceived, JSON.stringify({ text, cuts })).toBe(sha256(expected.crlf));
					expect(got.lf ?? got.asReceived, JSON.stringify({ text, cuts })).toBe(sha256(expected.lf));
				}
			}
		}
	});

	it("a chunk larger than the reused buffer (the buffered reader's whole part) gives the same digests", () => {
		const text = "line one\r\nline two\n".repeat(20_000);
		const whole = run(text, []);
		expect(whole.crlf).toBe(sha256(text.replace(/(^|[^\r])\n/g, "$1\r\n")));
		expect(whole.lf).toBe(sha256(text.replace(/\r\n/g, "\n")));
		expect(run(text, [1000, 70_000, 300_001])).toEqual(whole);
	});

	it("forks a form only where it differs: canonical CRLF text costs no CRLF form, LF text no LF form", () => {
		expect(run("a\r\nb\r\n", [3])).toMatchObject({ crlf: undefined });
		expect(run("a\nb\n", [2])).toMatchObject({ lf: undefined });
		expect(run("plain", [])).toMatchObject({ crlf: undefined, lf: undefined });
	});

	it("binary content is not followed in LF form", () => {
		expect(run("a\r\nb", [], false).lf).toBeUndefined();
		expect(run("a\nb", [], false).crlf).toBe(sha256("a\r\nb"));
	});
});
