import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The OpenSSL CLI as an independent peer (DESIGN.md, Testing against the real world).
 * Tests must fail, not skip, when it is missing: CI installs it.
 */
export function openssl(args: string[], input?: Uint8Array): Buffer {
	try {
		return execFileSync("openssl", args, {
			input,
			maxBuffer: 1 << 30,
			stdio: ["pipe", "pipe", "pipe"],
		});
	} catch (error) {
		const e = error as { stderr?: Buffer; message: string };
		throw new Error(`openssl ${args.join(" ")} failed: ${e.stderr?.toString() || e.message}`);
	}
}

/** A scratch directory removed by the returned `cleanup`. */
export function scratch(prefix = "as2kit-"): {
	dir: string;
	file: (name: string, data?: Uint8Array | string) => string;
	read: (name: string) => Buffer;
	cleanup: () => void;
} {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	return {
		dir,
		file(name, data) {
			const path = join(dir, name);
			if (data !== undefined) writeFileSync(path, data);
			return path;
		},
		read: (name) => readFileSync(join(dir, name)),
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
}

/**
 * `openssl cms -verify` of a detached DER signature over a content file, trusting `caPath`;
 * returns the content OpenSSL vouches for. Throws (with OpenSSL's message) when it fails.
 */
export function opensslVerifyDetached(options: {
	signaturePath: string;
	contentPath: string;
	caPath: string;
	outPath: string;
	/** Unix seconds: judge certificate validity then (`-attime`). */
	at?: number;
}): Buffer {
	openssl([
		"cms",
		"-verify",
		"-binary",
		"-inform",
		"DER",
		"-in",
		options.signaturePath,
		"-content",
		options.contentPath,
		"-CAfile",
		options.caPath,
		"-purpose",
		"any",
		...(options.at === undefined ? [] : ["-attime", String(options.at)]),
		"-out",
		options.outPath,
	]);
	return readFileSync(options.outPath);
}
