import { DIGESTS, type DigestAlgorithm, parseMicalg } from "../algorithms.ts";

/**
 * Disposition-Notification-Options (RFC 4130 §7.3, RFC 3798 §2.2):
 * `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha-1`.
 */
export interface NotificationOptions {
	signedReceipt: boolean;
	/** `required` rather than `optional` importance on the protocol parameter. */
	signedReceiptRequired: boolean;
	/** Algorithms the sender accepts, in its order of preference; unknown spellings dropped. */
	micAlgorithms: DigestAlgorithm[];
}

export function formatNotificationOptions(micAlgorithms: DigestAlgorithm[]): string {
	const names = micAlgorithms.map((a) => DIGESTS[a].micalg).join(",");
	return `signed-receipt-protocol=optional,pkcs7-signature; signed-receipt-micalg=optional,${names}`;
}

/** Tolerant: any order, case, spacing; an absent header means no signed receipt requested. */
export function parseNotificationOptions(value: string | undefined): NotificationOptions {
	const known = value ? parsed.get(value) : undefined;
	const result = known ?? parseOnce(value);
	// A partner sends the same value with every message.
	if (value && !known && parsed.size < 256) parsed.set(value, result);
	return { ...result, micAlgorithms: [...result.micAlgorithms] };
}

const parsed = new Map<string, NotificationOptions>();

function parseOnce(value: string | undefined): NotificationOptions {
	const result: NotificationOptions = { signedReceipt: false, signedReceiptRequired: false, micAlgorithms: [] };
	if (!value) return result;
	for (const param of value.split(";")) {
		const eq = param.indexOf("=");
		if (eq < 0) continue;
		const name = param.slice(0, eq).trim().toLowerCase();
		const [importance, ...values] = param
			.slice(eq + 1)
			.split(",")
			.map((v) => v.trim().replace(/^"|"$/g, ""));
		if (name === "signed-receipt-protocol") {
			result.signedReceipt = values.some((v) => /^(application\/)?(x-)?pkcs7-signature$/i.test(v));
			result.signedReceiptRequired = result.signedReceipt && importance?.toLowerCase() === "required";
		} else if (name === "signed-receipt-micalg") {
			for (const v of values) {
				const algorithm = parseMicalg(v);
				if (algorithm && !result.micAlgorithms.includes(algorithm)) result.micAlgorithms.push(algorithm);
			}
		}
	}
	return result;
}
