import {
	type ContentEncryptionAlgorithm,
	type DigestAlgorithm,
	parseCipherName,
	parseDigestName,
	type SignatureScheme,
} from "../../algorithms.ts";
import { UsageError } from "../exit-codes.ts";

/** `sha256`, `SHA256withRSA`, `sha256-pss` … */
export function signAlgorithm(name: string, option: string): { digest: DigestAlgorithm; scheme: SignatureScheme } {
	const pss = /-?pss$/i.test(name);
	return { digest: asUsage(option, () => parseDigestName(name.replace(/-?pss$/i, ""))), scheme: pss ? "pss" : "pkcs1" };
}

export function cipherAlgorithm(name: string, option: string): ContentEncryptionAlgorithm {
	return asUsage(option, () => parseCipherName(name));
}

export function atOption(value: string | undefined): Date | undefined {
	if (value === undefined) return undefined;
	const at = new Date(value);
	if (Number.isNaN(at.getTime())) throw new UsageError(`--at "${value}" is not a date-time`);
	return at;
}

/** A positive whole number, e.g. `--bits 3072`. */
export function countOption(value: string | undefined, option: string, fallback: number): number {
	if (value === undefined) return fallback;
	if (!/^[1-9][0-9]{0,6}$/.test(value)) throw new UsageError(`--${option} takes a positive whole number`);
	return Number(value);
}

/** An option value the engine does not know (an algorithm name) is a usage error, not a negative result. */
function asUsage<T>(option: string, parse: () => T): T {
	try {
		return parse();
	} catch (error) {
		throw new UsageError(`--${option}: ${(error as Error).message}`);
	}
}
