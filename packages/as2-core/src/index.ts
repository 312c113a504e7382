/**
 * @module @as2kit/core — the AS2 protocol engine (RFC 4130): streaming MIME, CMS/S/MIME,
 * MIC, MDN and certificates. No network or file I/O: bytes and streams in, bytes and streams out.
 */
export * from "./algorithms.ts";
export * from "./bytes/index.ts";
export * from "./errors/index.ts";
