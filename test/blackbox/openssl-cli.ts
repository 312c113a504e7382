/**
 * The OpenSSL CLI as the interop peer's only crypto: each operation runs `openssl` with
 * `execFile` on files in a temporary directory of its own, removed when the operation ends.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A digest as `openssl cms -md` and `openssl dgst` name it. */
export type OpensslDigest = "sha1" | "sha256" | "sha384" | "sha512";

const TIMEOUT_MS = 30_000;

export function openssl(args: string[]): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		execFile(
			"openssl",
			args,
			{ encoding: "buffer", maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS },
			(error, stdout, stderr) => {
				if (error) reject(new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${stderr.toString("latin1")}`));
				else resolve(stdout);
			},
		);
	});
}

export interface Workspace {
	/** Writes `content` to a file of the workspace; its path. */
	file(name: string, content: Buffer | string): Promise<string>;
	/** A path in the workspace for openssl's `-out`. */
	path(name: string): string;
	read(name: string): Promise<Buffer>;
}

/** Runs `work` in a fresh directory under `root`, removed afterwards whatever happens. */
export async function inWorkspace<T>(root: string, work: (workspace: Workspace) => Promise<T>): Promise<T> {
	const dir = await mkdtemp(join(root, "op-"));
	try {
		return await work({
			async file(name, content) {
				await writeFile(join(dir, name), content);
				return join(dir, name);
			},
			path: (name) => join(dir, name),
			read: (name) => readFile(join(dir, name)),
		});
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

/** `openssl dgst -<digest> -binary` of `bytes`, base64: the value of a Received-Content-MIC. */
export async function opensslDigest(root: string, bytes: Buffer, digest: OpensslDigest): Promise<string> {
	return inWorkspace(root, async (ws) => {
		const input = await ws.file("content", bytes);
		return (await openssl(["dgst", `-${digest}`, "-binary", input])).toString("base64");
	});
}

/** What `openssl cms -cmsout -print` says of a CMS structure, whitespace folded. */
export async function opensslPrint(root: string, cms: Buffer, inform: "DER" | "SMIME"): Promise<string> {
	return inWorkspace(root, async (ws) => {
		const input = await ws.file("cms", cms);
		return (await openssl(["cms", "-cmsout", "-print", "-inform", inform, "-in", input]))
			.toString("latin1")
			.replace(/\s+/g, " ");
	});
}

/**
 * The key transport of an EnvelopedData / AuthEnvelopedData as printed: `rsa` (PKCS#1 v1.5),
 * or `oaep-<hash>/mgf1-<hash>` from the RSAES-OAEP-params (RFC 4055 §4.1: absent = SHA-1).
 */
export function printedKeyTransport(printed: string): string {
	const algorithm = /keyEncryptionAlgorithm: algorithm: (\S+)(.*?)encryptedKey:/.exec(printed);
	if (!algorithm) return "unknown";
	if (algorithm[1] === "rsaEncryption") return "rsa";
	if (algorithm[1] !== "rsaesOaep") return algorithm[1]!;
	const params = algorithm[2]!;
	const hash = /cont \[ 0 \] .*?OBJECT :(\w+)/.exec(params)?.[1] ?? "sha1";
	const mgf = /OBJECT :mgf1 .*?OBJECT :(\w+)/.exec(params)?.[1] ?? "sha1";
	return `oaep-${hash}/mgf1-${mgf}`;
}

/** The content-encryption algorithm as printed (`des-ede3-cbc`, `aes-128-gcm` …). */
export function printedCipher(printed: string): string {
	return /contentEncryptionAlgorithm: algorithm: (\S+)/.exec(printed)?.[1] ?? "unknown";
}

/** The container: `envelopedData` or `authEnvelopedData` (RFC 5083). */
export function printedContainer(printed: string): string {
	return /contentType: (?:id-smime-ct-|pkcs7-)?(\w+)/.exec(printed)?.[1] ?? "unknown";
}

/** The signer's digest algorithm as printed (`sha256` …). */
export function printedSignerDigest(printed: string): string {
	return /signerInfos: .*?digestAlgorithm: algorithm: (\S+)/.exec(printed)?.[1] ?? "unknown";
}
