/**
 * Downloads with the Authorization header, saved from a Blob: the token never goes into a
 * URL (no `?token=`, no link the browser fetches on its own).
 */
import { apiUrl, authHeaders, toApiError } from "./api.ts";

export async function downloadFile(path: string, fallbackName: string): Promise<void> {
	const response = await fetch(apiUrl(path), { headers: { Accept: "*/*", ...authHeaders() } });
	if (!response.ok) throw await toApiError(response);
	const blob = await response.blob();
	const href = URL.createObjectURL(blob);
	try {
		const link = document.createElement("a");
		link.href = href;
		link.download = fileName(response.headers.get("Content-Disposition")) ?? fallbackName;
		document.body.append(link);
		link.click();
		link.remove();
	} finally {
		// Chromium reads the object URL synchronously on click; revoke on the next task.
		setTimeout(() => URL.revokeObjectURL(href), 0);
	}
}

/** `filename*=UTF-8''…` (RFC 6266 §4.3) wins over `filename="…"`. */
function fileName(disposition: string | null): string | null {
	if (!disposition) return null;
	const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
	if (extended?.[1]) return decodeURIComponent(extended[1]);
	return /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
}
