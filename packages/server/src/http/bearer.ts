import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The credential of `Authorization: Bearer <credential>`, or null. The scheme is matched
 * case-insensitively (RFC 9110 §11.1: "bearer" is the same scheme) and whitespace around the
 * credential is tolerated, as clients and scrapers send it.
 */
export function bearerCredential(header: string | undefined): string | null {
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
	return match ? match[1]! : null;
}

/**
 * Whether `credential` is `secret`, in a time that does not depend on where they differ:
 * digests of equal length go through timingSafeEqual, so a scraper cannot guess the secret
 * byte by byte from response times.
 */
export function isSecret(credential: string | null, secret: string): boolean {
	if (credential === null) return false;
	const digest = (text: string) => createHash("sha256").update(text).digest();
	return timingSafeEqual(digest(credential), digest(secret));
}
