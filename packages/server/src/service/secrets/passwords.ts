import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

/**
 * Slow-hashes a password with scrypt (decisions.md: passwords only as slow hashes) into
 * `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>`, so the cost can rise without a migration.
 */
export async function hashPassword(password: string, costLog2: number): Promise<string> {
	const salt = randomBytes(16);
	const hash = await derive(password, salt, costLog2, R, P);
	return ["scrypt", costLog2, R, P, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const [scheme, costLog2, r, p, salt, hash] = stored.split("$");
	if (scheme !== "scrypt" || !salt || !hash) return false;
	const expected = Buffer.from(hash, "base64");
	const actual = await derive(password, Buffer.from(salt, "base64"), Number(costLog2), Number(r), Number(p));
	return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function derive(password: string, salt: Buffer, costLog2: number, r: number, p: number): Promise<Buffer> {
	const N = 2 ** costLog2;
	return new Promise((resolve, reject) => {
		scrypt(
			password.normalize("NFKC"),
			salt,
			KEY_LENGTH,
			{ N, r, p, maxmem: 256 * N * r + 1024 * 1024 },
			(error, key) => (error ? reject(error) : resolve(key)),
		);
	});
}
