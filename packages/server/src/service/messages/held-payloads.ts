import type { ServiceDeps } from "../deps.ts";

/** A payload larger than this is read from its blob, as it always was. */
const MAX_HELD_BYTES = 64 * 1024;
/** What all held payloads of one service may take together; the oldest go first. */
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

/**
 * The bytes of payloads a submission of this process just wrote to their blobs, for the send
 * job that this process's worker runs next (issue #20: it then builds its AS2 request from
 * them instead of reading the blob back: an open, fstat, read and close less per message).
 *
 * Safe because a payload's blob is written once, under a fresh key (`newPayloadKey`), before
 * the transaction that names it commits, and never rewritten: held bytes are the blob's
 * content. The blob stays the source of truth: a payload is taken once (a retry, or a job
 * claimed by another instance, reads the blob), and one not taken soon is dropped, oldest first.
 */
export interface HeldPayloads {
	/** Holds the bytes just written at `key` (a small payload only). */
	hold(key: string, bytes: Uint8Array): void;
	/** The bytes held for `key`, once, when they are `size` bytes long; otherwise null. */
	take(key: string, size: number): Uint8Array | null;
}

const byService = new WeakMap<ServiceDeps, HeldPayloads>();

/** The held payloads of this service (one set shared by its submissions and its send jobs). */
export function heldPayloads(deps: ServiceDeps): HeldPayloads {
	let held = byService.get(deps);
	if (!held) {
		held = createHeldPayloads();
		byService.set(deps, held);
	}
	return held;
}

export function createHeldPayloads(maxTotalBytes = MAX_TOTAL_BYTES): HeldPayloads {
	// Insertion order is age order: the first entries are dropped first.
	const entries = new Map<string, Uint8Array>();
	let total = 0;
	return {
		hold(key, bytes) {
			if (bytes.byteLength > MAX_HELD_BYTES || bytes.byteLength > maxTotalBytes) return;
			entries.set(key, bytes);
			total += bytes.byteLength;
			for (const [oldest, dropped] of entries) {
				if (total <= maxTotalBytes) break;
				entries.delete(oldest);
				total -= dropped.byteLength;
			}
		},
		take(key, size) {
			const bytes = entries.get(key);
			if (!bytes) return null;
			entries.delete(key);
			total -= bytes.byteLength;
			return bytes.byteLength === size ? bytes : null;
		},
	};
}
