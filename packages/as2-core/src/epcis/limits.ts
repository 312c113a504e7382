import type { EpcisLimits } from "./types.ts";

/** Defaults: generous for real documents (events are a few KB), fatal for hostile ones. */
export const DEFAULT_EPCIS_LIMITS: Readonly<EpcisLimits> = Object.freeze({
	maxDepth: 64,
	maxAttributes: 64,
	maxAttributeLength: 64 * 1024,
	maxTextLength: 1024 * 1024,
	maxEventLength: 8 * 1024 * 1024,
	maxEvents: 10_000_000,
	maxErrors: 1000,
});

export function resolveLimits(limits: Partial<EpcisLimits> | undefined): EpcisLimits {
	return { ...DEFAULT_EPCIS_LIMITS, ...limits };
}
