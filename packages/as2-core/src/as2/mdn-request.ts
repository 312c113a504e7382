import type { DigestAlgorithm } from "../algorithms.ts";
import type { MimeHeaders } from "../mime/index.ts";
import { parseNotificationOptions } from "./notification-options.ts";

/** What the sender of a message asked for in return (RFC 4130 §7.3). */
export interface MdnRequest {
	mode: "sync" | "async";
	/** Receipt-Delivery-Option: where an async MDN goes. */
	url?: string;
	notificationTo: string;
	signed: boolean;
	/** Preferred first; empty when none readable (then sha-256 is used). */
	micAlgorithms: DigestAlgorithm[];
}

/** Undefined when no MDN was requested (no Disposition-Notification-To). */
export function readMdnRequest(headers: MimeHeaders): MdnRequest | undefined {
	const notificationTo = headers.get("disposition-notification-to")?.trim();
	if (!notificationTo) return undefined;
	const url = headers.get("receipt-delivery-option")?.trim();
	const options = parseNotificationOptions(headers.get("disposition-notification-options"));
	return {
		mode: url ? "async" : "sync",
		...(url ? { url } : {}),
		notificationTo,
		signed: options.signedReceipt,
		micAlgorithms: options.micAlgorithms,
	};
}
