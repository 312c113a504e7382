/** How a certificate stands today, in the StatusBadge's words; 30 days is the overview's "expiring soon". */
import type { Certificate } from "./partner-types.ts";

const EXPIRING_DAYS = 30;

export function certificateState(
	certificate: Certificate,
	now = Date.now(),
): "expired" | "expiring" | "active" | "inactive" {
	const expires = new Date(certificate.expires_at).getTime();
	if (expires <= now) return "expired";
	if (!certificate.active) return "inactive";
	return expires - now < EXPIRING_DAYS * 86_400_000 ? "expiring" : "active";
}

export function daysLeft(certificate: Certificate, now = Date.now()): number {
	return Math.ceil((new Date(certificate.expires_at).getTime() - now) / 86_400_000);
}

/** Saves text the page already holds (a certificate's PEM) as a file: no request, no URL with a secret. */
export function saveText(fileName: string, text: string, type = "application/x-pem-file"): void {
	const href = URL.createObjectURL(new Blob([text], { type }));
	try {
		const link = document.createElement("a");
		link.href = href;
		link.download = fileName;
		document.body.append(link);
		link.click();
		link.remove();
	} finally {
		setTimeout(() => URL.revokeObjectURL(href), 0);
	}
}

/** A file name from a certificate's name: letters, digits, dot, dash and underscore. */
export function pemFileName(certificate: Certificate): string {
	return `${certificate.name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || certificate.id}.pem`;
}

const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** A validity bound as a day: the time of day of a certificate's validity says little. */
export function formatDay(value: string): string {
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? value : day.format(date);
}
