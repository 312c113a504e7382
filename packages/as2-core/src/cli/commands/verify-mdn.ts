import { DIGESTS } from "../../algorithms.ts";
import { stripMessageId } from "../../as2/message-id.ts";
import { formatMic, micEquals, parseMic } from "../../as2/mic.ts";
import { type ParsedMdn, parseMdn } from "../../mdn/parse-mdn.ts";
import { defineCommand, required } from "../command.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { fileChunks, readHeadersFile } from "../files.ts";
import { loadCertificates } from "../identity.ts";
import { printJson } from "../output.ts";
import { atOption } from "./options.ts";

export const verifyMdn = defineCommand({
	name: "verify-mdn",
	summary: "check a received MDN: signature, disposition, MIC — exit 0 only when it passes",
	usage: `as2kit verify-mdn --headers H --body B --partner-cert P [--expect-mic "MIC, ALG"] [options]

Checks a receipt (RFC 4130 §7.4) for a message you sent. It passes (exit 0) only when all hold:
  - it is signed, and the signature verifies against --partner-cert (unless --allow-unsigned;
    a signature that is there but does not verify never passes);
  - its disposition is positive: processed, or processed/warning;
  - its Received-Content-MIC equals --expect-mic, when given (the "mic" build printed);
  - its Original-Message-ID equals --expect-message-id, when given.
Otherwise it exits 1; "problems" in the JSON lists what failed.

  --headers H                 the MDN's headers, one "Name: value" a line (required)
  --body B                    the MDN's body (required)
  --partner-cert P            the partner's certificate (repeatable; required unless --allow-unsigned)
  --expect-mic "MIC, ALG"     the MIC of the message sent, e.g. "kxWk…=, sha-256"
  --expect-message-id ID      the Message-ID of the message sent
  --allow-unsigned            accept an unsigned MDN (a partner agreed to send them)
  --at DATETIME               judge certificate validity at this time (old captures)

Prints {accepted, problems, original_message_id, disposition, positive, mic, mic_algorithm,
signed, signature_valid, signature_error?, mic_matches}.`,
	options: {
		headers: { type: "string" },
		body: { type: "string" },
		"partner-cert": { type: "string", multiple: true },
		"expect-mic": { type: "string" },
		"expect-message-id": { type: "string" },
		"allow-unsigned": { type: "boolean" },
		at: { type: "string" },
	},
	async run(v) {
		const headersPath = required(v, "headers");
		const bodyPath = required(v, "body");
		const allowUnsigned = Boolean(v["allow-unsigned"]);
		const certificatePaths = v["partner-cert"] ?? [];
		if (certificatePaths.length === 0 && !allowUnsigned) {
			// Without it a signature is only checked against the certificate the MDN carries,
			// which anyone can make: that proves nothing about who sent the receipt.
			throw new UsageError("--partner-cert is required (or --allow-unsigned)");
		}
		const expectedMic = v["expect-mic"] === undefined ? undefined : parseMic(v["expect-mic"]);
		if (v["expect-mic"] !== undefined && !expectedMic) {
			throw new UsageError(`--expect-mic "${v["expect-mic"]}" is not "<base64>, <algorithm>"`);
		}
		const at = atOption(v.at);
		const partnerCertificates = certificatePaths.length > 0 ? await loadCertificates(certificatePaths) : undefined;
		const mdn = await parseMdn({
			headers: await readHeadersFile(headersPath),
			body: await fileChunks(bodyPath),
			...(partnerCertificates ? { partnerCertificates } : {}),
			...(at ? { at } : {}),
		});
		const problems = problemsOf(mdn, {
			requireSignature: !allowUnsigned,
			expectedMic,
			expectedMessageId: v["expect-message-id"],
		});
		printJson({
			accepted: problems.length === 0,
			problems,
			original_message_id: mdn.originalMessageId,
			disposition: mdn.disposition.raw,
			positive: mdn.positive,
			mic: mdn.mic?.value ?? null,
			mic_algorithm: mdn.mic ? DIGESTS[mdn.mic.algorithm].micalg : null,
			signed: mdn.signed,
			signature_valid: (mdn.signatureValid ?? false) && partnerCertificates !== undefined,
			...(mdn.signatureError
				? { signature_error: { code: mdn.signatureError.code, message: mdn.signatureError.message } }
				: {}),
			mic_matches: expectedMic ? micEquals(mdn.mic, expectedMic) : null,
		});
		return problems.length === 0 ? EXIT.ok : EXIT.negative;
	},
});

function problemsOf(
	mdn: ParsedMdn,
	expected: {
		requireSignature: boolean;
		expectedMic: ReturnType<typeof parseMic>;
		expectedMessageId: string | undefined;
	},
): string[] {
	const problems: string[] = [];
	if (mdn.signed && mdn.signatureValid === false) {
		problems.push(`the signature does not verify: ${mdn.signatureError?.message ?? "unknown reason"}`);
	} else if (expected.requireSignature && !mdn.signed) {
		problems.push("the MDN is not signed");
	}
	if (!mdn.positive) problems.push(`the disposition is negative: ${mdn.disposition.raw}`);
	if (expected.expectedMic && !micEquals(mdn.mic, expected.expectedMic)) {
		problems.push(
			mdn.mic
				? `the Received-Content-MIC ${formatMic(mdn.mic)} is not the expected ${formatMic(expected.expectedMic)}`
				: "the MDN carries no Received-Content-MIC",
		);
	}
	const expectedId = expected.expectedMessageId && stripMessageId(expected.expectedMessageId);
	if (expectedId && mdn.originalMessageId !== expectedId) {
		problems.push(`the Original-Message-ID ${mdn.originalMessageId} is not the expected ${expectedId}`);
	}
	return problems;
}
