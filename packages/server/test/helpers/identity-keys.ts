/**
 * Pre-generated RSA-2048 key pairs for the tenant identities of test apps: every registration
 * and new tenant generates one otherwise, 0.1-0.3 s of CPU each, and the in-process projects
 * register about 1,800 times. Generated once per worker process (vitest reuses the in-process
 * workers across files), then handed out in turn, so that the tenants of one test have
 * different keys as long as it makes no more than POOL_SIZE of them. Tests of key generation
 * itself use generateSelfSigned directly (as2-core) or the built server, which never pools.
 */
const POOL_SIZE = 12;

let pool: Promise<CryptoKeyPair[]> | null = null;
let next = 0;

export async function pooledIdentityKeyPair(): Promise<CryptoKeyPair> {
	pool ??= Promise.all(
		Array.from(
			{ length: POOL_SIZE },
			() =>
				globalThis.crypto.subtle.generateKey(
					{
						name: "RSASSA-PKCS1-v1_5",
						modulusLength: 2048,
						publicExponent: new Uint8Array([1, 0, 1]),
						hash: "SHA-256",
					},
					true,
					["sign", "verify"],
				) as Promise<CryptoKeyPair>,
		),
	);
	const keys = await pool;
	return keys[next++ % keys.length]!;
}
