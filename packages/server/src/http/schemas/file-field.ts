import * as v from "valibot";

/** A form file or a string (PEM text, or base64 of binary content in JSON bodies). */
export const fileOrText = v.union([v.string(), v.instance(File)], "must be a file or a string");

/** The bytes of an uploaded file field, or of a string (PEM as is; other text as base64 when `base64`). */
export async function bytesOf(value: string | File, options: { base64?: boolean } = {}): Promise<Uint8Array | string> {
	if (typeof value !== "string") return new Uint8Array(await value.arrayBuffer());
	if (options.base64 && !value.includes("-----BEGIN")) return new Uint8Array(Buffer.from(value, "base64"));
	return value;
}
