import { readFile } from "node:fs/promises";
import { parseCertificates, readIdentity } from "../certs/index.ts";
import type { PrivateKey } from "../crypto/index.ts";

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
	if (!isPem) return readIdentity({ pkcs12: key, password: password ?? "" });
	if (!certPath) throw new Error("--cert is required with a PEM --key");
	return readIdentity({
		key,
		certificate: new Uint8Array(await readFile(certPath)),
		...(password !== undefined ? { password } : {}),
	});
}

export async function loadCertificates(paths: string[]): Promise<Uint8Array[]> {
	const all: Uint8Array[] = [];
	for (const path of paths) all.push(...parseCertificates(new Uint8Array(await readFile(path))));
	return all;
}
