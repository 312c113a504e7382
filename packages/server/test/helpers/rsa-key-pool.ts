/**
 * RSA-2048 keys made once per test run. A tenant's identity is an RSA-2048 key generated when
 * the tenant is created (decisions.md, Identity certificate of a tenant): some 120 ms of CPU
 * each, most of the CPU of the in-process REST suites, which create a tenant or two per test.
 * In a test process, WebCrypto's generation of such keys draws them from a pool instead, read
 * from the run's fixtures directory (test/setup/temp-root.ts) and made by whichever process
 * needed a key first. Keys are distinct among the servers alive in a process (each test app or
 * peer opens a key scope while it runs): the n-th key since the process last had none alive,
 * so a test's tenants, and two servers talking to each other, never share one; a test that
 * starts afresh takes keys 0, 1, … again. Everything else is untouched: the identity
 * certificate is still built and signed by the code under test, other key kinds are generated
 * as usual, and the servers the black-box suites start generate their own keys.
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const RSA_SIGNING = "RSASSA-PKCS1-v1_5";
let installed = false;
let next = 0;
let openScopes = 0;

/**
 * Opens a key scope for a server's lifetime; call the answer to close it. The first scope
 * opened while none is open starts the sequence of keys over.
 */
export function openKeyScope(): () => void {
	if (openScopes === 0) next = 0;
	openScopes += 1;
	let open = true;
	return () => {
		if (open) openScopes -= 1;
		open = false;
	};
}

export function poolRsaKeyGeneration(): void {
	if (installed) return;
	installed = true;
	const fixtures = process.env.AS2KIT_TEST_FIXTURES;
	if (!fixtures) throw new Error("AS2KIT_TEST_FIXTURES is unset: run tests through vitest (test/setup/temp-root.ts)");
	const dir = join(fixtures, "rsa-2048");
	mkdirSync(dir, { recursive: true });
	const subtle = globalThis.crypto.subtle;
	const generate = subtle.generateKey.bind(subtle) as (
		algorithm: RsaHashedKeyGenParams,
		extractable: boolean,
		usages: KeyUsage[],
	) => Promise<CryptoKeyPair>;

	const pooled = async (n: number): Promise<Uint8Array<ArrayBuffer>> => {
		const path = join(dir, `${n}.pkcs8.der`);
		if (existsSync(path)) return new Uint8Array(readFileSync(path));
		const fresh = await generate(
			{ name: RSA_SIGNING, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
			true,
			["sign", "verify"],
		);
		const pkcs8 = new Uint8Array(await subtle.exportKey("pkcs8", fresh.privateKey));
		// Another process may make key n at the same time: each writes its own file and renames it
		// into place, so readers only ever see a whole key.
		const work = `${path}.${process.pid}`;
		writeFileSync(work, pkcs8);
		renameSync(work, path);
		return pkcs8;
	};

	const generateKey = async (algorithm: unknown, extractable: boolean, usages: KeyUsage[]) => {
		if (!isRsa2048Signing(algorithm)) return generate(algorithm as RsaHashedKeyGenParams, extractable, usages);
		const pkcs8 = await pooled(next++);
		const spki = createPublicKey(createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" })).export({
			type: "spki",
			format: "der",
		});
		const params = { name: RSA_SIGNING, hash: algorithm.hash };
		return {
			privateKey: await subtle.importKey(
				"pkcs8",
				pkcs8,
				params,
				extractable,
				usages.filter((u) => u === "sign"),
			),
			publicKey: await subtle.importKey(
				"spki",
				spki,
				params,
				true,
				usages.filter((u) => u === "verify"),
			),
		};
	};
	subtle.generateKey = generateKey as SubtleCrypto["generateKey"];
}

function isRsa2048Signing(algorithm: unknown): algorithm is RsaHashedKeyGenParams {
	if (typeof algorithm !== "object" || algorithm === null) return false;
	const a = algorithm as Partial<RsaHashedKeyGenParams>;
	return (
		a.name?.toUpperCase() === RSA_SIGNING.toUpperCase() &&
		a.modulusLength === 2048 &&
		a.publicExponent !== undefined &&
		Buffer.from(a.publicExponent).equals(Buffer.from([1, 0, 1]))
	);
}
