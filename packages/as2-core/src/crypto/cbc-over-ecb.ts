import { createCipheriv, createDecipheriv } from "node:crypto";
import { concatBytes } from "../bytes/index.ts";
import type { StreamCipher } from "./cipher.ts";

const BLOCK = 16;

/**
 * AES-CBC with PKCS#7 padding (RFC 5652 §6.3) built on the runtime's AES-ECB, for a runtime
 * whose node:crypto has the block cipher but not the mode: Deno 2 makes `aes-192-ecb` but
 * not `aes-192-cbc`. `ecbName` is the ECB cipher (`aes-192-ecb`). Encryption chains block by
 * block (CBC is serial); decryption runs all whole blocks through ECB at once and then XORs.
 */
export function createCbcOverEcb(
	ecbName: string,
	mode: "encrypt" | "decrypt",
	key: Uint8Array,
	iv: Uint8Array,
): StreamCipher {
	const ecb = mode === "encrypt" ? createCipheriv(ecbName, key, null) : createDecipheriv(ecbName, key, null);
	ecb.setAutoPadding(false);
	let previous = Uint8Array.from(iv);
	let pending = new Uint8Array(0);
	let finished = false;

	const encryptBlocks = (data: Uint8Array): Uint8Array => {
		const out = new Uint8Array(data.byteLength);
		const block = new Uint8Array(BLOCK);
		for (let p = 0; p < data.byteLength; p += BLOCK) {
			for (let i = 0; i < BLOCK; i++) block[i] = data[p + i]! ^ previous[i]!;
			previous = ecb.update(block);
			out.set(previous, p);
		}
		return out;
	};
	const decryptBlocks = (data: Uint8Array): Uint8Array => {
		const out = new Uint8Array(ecb.update(data));
		for (let p = 0; p < data.byteLength; p += BLOCK) {
			const chain = p === 0 ? previous : data.subarray(p - BLOCK, p);
			for (let i = 0; i < BLOCK; i++) out[p + i]! ^= chain[i]!;
		}
		previous = data.slice(data.byteLength - BLOCK);
		return out;
	};
	const start = () => {
		if (finished) throw new Error(`${ecbName} CBC: used after final()`);
	};

	return {
		update(chunk) {
			start();
			const data = pending.byteLength === 0 ? chunk : concatBytes([pending, chunk]);
			let whole = data.byteLength - (data.byteLength % BLOCK);
			// Decrypting, keep the last whole block back: it holds the padding final() checks.
			if (mode === "decrypt" && whole === data.byteLength) whole -= BLOCK;
			if (whole <= 0) {
				pending = Uint8Array.from(data);
				return new Uint8Array(0);
			}
			pending = data.slice(whole);
			const blocks = data.subarray(0, whole);
			return mode === "encrypt" ? encryptBlocks(blocks) : decryptBlocks(blocks);
		},
		final() {
			start();
			finished = true;
			if (mode === "encrypt") {
				const pad = BLOCK - pending.byteLength;
				const last = new Uint8Array(BLOCK).fill(pad);
				last.set(pending);
				return encryptBlocks(last);
			}
			if (pending.byteLength !== BLOCK) throw new Error("bad decrypt: CBC data is not whole blocks");
			const last = decryptBlocks(pending);
			const pad = last[BLOCK - 1]!;
			if (pad < 1 || pad > BLOCK) throw new Error("bad decrypt: CBC padding");
			for (let i = BLOCK - pad; i < BLOCK; i++) if (last[i] !== pad) throw new Error("bad decrypt: CBC padding");
			return last.subarray(0, BLOCK - pad);
		},
	};
}
