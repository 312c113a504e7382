import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openssl } from "./openssl.ts";

/** A test identity made by the OpenSSL CLI at test time (no key material is checked in). */
export interface TestIdentity {
	name: string;
	keyPem: string;
	certPem: string;
	certDer: Uint8Array;
	keyPath: string;
	certPath: string;
	/** PKCS#12 (OpenSSL 3 defaults: PBES2/AES-256, SHA-256 MAC) with password "test-pass". */
	p12Path: string;
}

/**
 * The run's shared fixtures directory (test/setup/temp-root.ts), removed when the run ends:
 * identities hold private keys, so they are made once per run rather than kept on the machine.
 */
function identitiesDir(): string {
	const fixtures = process.env.AS2KIT_TEST_FIXTURES;
	if (!fixtures) throw new Error("AS2KIT_TEST_FIXTURES is unset: run tests through vitest (test/setup/temp-root.ts)");
	return join(fixtures, "identities");
}

/**
 * Returns (creating once per test run) an RSA identity. `kind`:
 * - "rsa" (2048, valid 10 years), "rsa4096", "rsa1024" (too small for SHA-256 signing),
 * - "expired" (valid from 2001 to 2002), "pss" (RSASSA-PSS key).
 */
export function testIdentity(name: "alice" | "bob" | "carol" | "expired" | "small" | "pss"): TestIdentity {
	const dir = identitiesDir();
	const home = join(dir, name);
	if (!existsSync(home)) {
		// Test files run in parallel processes: build in a private folder, then rename it into
		// place atomically; a loser of the race discards its own.
		const work = join(dir, `.work-${process.pid}-${name}`);
		mkdirSync(work, { recursive: true });
		create(name, work);
		try {
			renameSync(work, home);
		} catch {
			rmSync(work, { recursive: true, force: true });
		}
	}
	const keyPath = join(home, "key.pem");
	const certPath = join(home, "cert.pem");
	const p12Path = join(home, "identity.p12");
	const certPem = readFileSync(certPath, "latin1");
	const der = openssl(["x509", "-in", certPath, "-outform", "DER"]);
	return {
		name,
		keyPem: readFileSync(keyPath, "latin1"),
		certPem,
		certDer: new Uint8Array(der),
		keyPath,
		certPath,
		p12Path,
	};
}

function create(name: string, dir: string): void {
	const keyPath = join(dir, "key.pem");
	const certPath = join(dir, "cert.pem");
	const p12Path = join(dir, "identity.p12");
	{
		const bits = name === "small" ? "1024" : "2048";
		const algorithm = name === "pss" ? "RSA-PSS" : "RSA";
		openssl(["genpkey", "-algorithm", algorithm, "-pkeyopt", `rsa_keygen_bits:${bits}`, "-out", keyPath]);
		const subject = `/CN=${name}.as2kit.test/O=as2kit tests`;
		if (name === "expired") {
			// OpenSSL 3.0's `req`/`x509` cannot back-date; `ca -selfsign` can.
			const ca = join(dir, "ca");
			mkdirSync(ca, { recursive: true });
			writeFileSync(join(ca, "index.txt"), "");
			writeFileSync(join(ca, "serial"), "1000\n");
			const config = join(ca, "ca.cnf");
			writeFileSync(
				config,
				`[ca]\ndefault_ca=d\n[d]\ndir=${ca}\ndatabase=${ca}/index.txt\nnew_certs_dir=${ca}\nserial=${ca}/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n`,
			);
			openssl(["req", "-new", "-key", keyPath, "-subj", subject, "-out", `${keyPath}.csr`]);
			openssl([
				"ca",
				"-batch",
				"-config",
				config,
				"-selfsign",
				"-keyfile",
				keyPath,
				"-in",
				`${keyPath}.csr`,
				"-startdate",
				"20010101000000Z",
				"-enddate",
				"20020101000000Z",
				"-notext",
				"-out",
				certPath,
			]);
		} else {
			openssl(["req", "-new", "-x509", "-key", keyPath, "-subj", subject, "-days", "3650", "-out", certPath]);
		}
		openssl(["pkcs12", "-export", "-inkey", keyPath, "-in", certPath, "-out", p12Path, "-passout", "pass:test-pass"]);
	}
}
