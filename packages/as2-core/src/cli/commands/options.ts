import { parseArgs } from "node:util";
import { type DigestAlgorithm, parseDigestName, type SignatureScheme } from "../../algorithms.ts";

type Spec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

/** Parses `--name value` options strictly; unknown options are an error. */
export function options<T extends Spec>(args: string[], spec: T) {
	return parseArgs({ args, options: spec, strict: true, allowPositionals: false }).values;
}

export function required(values: Record<string, unknown>, name: string): string {
	const value = values[name];
	if (typeof value !== "string" || value === "") throw new Error(`--${name} is required`);
	return value;
}

/** `sha256`, `SHA256withRSA`, `sha256-pss` … */
export function signAlgorithm(name: string): { digest: DigestAlgorithm; scheme: SignatureScheme } {
	const pss = /-?pss$/i.test(name);
	return { digest: parseDigestName(name.replace(/-?pss$/i, "")), scheme: pss ? "pss" : "pkcs1" };
}

export function atOption(value: string | undefined): Date | undefined {
	if (value === undefined) return undefined;
	const at = new Date(value);
	if (Number.isNaN(at.getTime())) throw new Error(`--at "${value}" is not a date-time`);
	return at;
}
