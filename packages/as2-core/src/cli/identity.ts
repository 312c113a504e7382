import { readFile } from "node:fs/promises";
import { parseCertificates, readIdentity } from "../certs/index.ts";
import type { PrivateKey } from "../crypto/index.ts";
import { InputError, UsageError } from "./exit-codes.ts";

export interface CliIdentity {
	privateKey: PrivateKey;
	certificate: Uint8Array;
	chain: Uint8Array[];
}

/** `--key` is a PEM key (with `--cert`) or a PKCS#12 file; `--key-pass` opens either. */
export async function loadIdentity(
	keyPath: string,
	certPath: string | undefined,
	password: string | undefined,
): Promise<CliIdentity> {
	const key = new Uint8Array(await readFile(keyPath));
	const isPem = Buffer.from(key.subarray(0, 4096)).toString("latin1").includes("-----BEGIN");
	if (isPem && !certPath) throw new UsageError("--cert is required with a PEM --key");
	const certificate = certPath ? new Uint8Array(await readFile(certPath)) : undefined;
	return unreadable(`the key ${keyPath}`, () =>
		isPem
			? readIdentity({ key, certificate: certificate!, ...(password !== undefined ? { password } : {}) })
			: readIdentity({ pkcs12: key, password: password ?? "" }),
	);
}

export async function loadCertificates(paths: string[]): Promise<Uint8Array[]> {
	const all: Uint8Array[] = [];
	for (const path of paths) {
		const bytes = new Uint8Array(await readFile(path));
		all.push(...unreadable(`the certificate ${path}`, () => parseCertificates(bytes)));
	}
	return all;
}

/** A key or certificate file that does not parse is an input error (exit 3), not a refused message. */
function unreadable<T>(what: string, read: () => T): T {
	try {
		return read();
	} catch (error) {
		throw new InputError(`${what} cannot be read: ${(error as Error).message}`, { cause: error });
	}
}
