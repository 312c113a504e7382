import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "../../../../test/setup/scratch-dirs.ts";

/**
 * Certificates made by the OpenSSL CLI at test time, in one scratch directory per call,
 * removed after the test file.
 */
export function makeCertificates() {
	const dir = scratchDir("as2kit-certs-");
	const path = (name: string) => join(dir, name);
	const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] });
	const read = (name: string) => readFileSync(path(name), "utf8");

	/**
	 * A self-signed certificate (RSA of `bits`, or EC P-256) with exact dates (OpenSSL 3.0's
	 * req/x509 cannot back-date; `ca -selfsign` can), e.g. one that expired in 2002 or one that
	 * expires in 20 days.
	 */
	function selfSigned(
		name: string,
		options: { bits?: number; ec?: boolean; validity?: { from: Date; to: Date } } = {},
	) {
		// Valid around the tests' clock (2026) and the machine's, unless told otherwise.
		const validity = options.validity ?? { from: new Date("2025-01-01Z"), to: new Date("2035-01-01Z") };
		const key = options.ec
			? ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
			: ["-newkey", `rsa:${options.bits ?? 2048}`];
		const ca = path(`${name}-ca`);
		mkdirSync(ca, { recursive: true });
		writeFileSync(join(ca, "index.txt"), "");
		writeFileSync(join(ca, "serial"), "1000\n");
		writeFileSync(
			join(ca, "ca.cnf"),
			`[ca]\ndefault_ca=d\n[d]\ndir=${ca}\ndatabase=${ca}/index.txt\nnew_certs_dir=${ca}\nserial=${ca}/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n`,
		);
		openssl([
			"req",
			"-new",
			...key,
			"-nodes",
			"-keyout",
			path(`${name}.key`),
			"-out",
			path(`${name}.csr`),
			"-subj",
			`/CN=${name}`,
		]);
		openssl([
			"ca",
			"-batch",
			"-config",
			join(ca, "ca.cnf"),
			"-selfsign",
			"-keyfile",
			path(`${name}.key`),
			"-in",
			path(`${name}.csr`),
			"-startdate",
			asn1Time(validity.from),
			"-enddate",
			asn1Time(validity.to),
			"-out",
			path(`${name}.pem`),
			"-notext",
		]);
		return {
			certPem: read(`${name}.pem`),
			keyPem: read(`${name}.key`),
			certPath: path(`${name}.pem`),
			keyPath: path(`${name}.key`),
		};
	}

	return {
		dir,
		selfSigned,
		/** A CA and a leaf it issued: PEM bundle (leaf last, to test leaf picking) and a .p7b. */
		chain() {
			const ca = selfSigned("chain-ca");
			openssl([
				"req",
				"-new",
				"-newkey",
				"rsa:2048",
				"-nodes",
				"-keyout",
				path("leaf.key"),
				"-out",
				path("leaf.csr"),
				"-subj",
				"/CN=chain-leaf",
			]);
			openssl([
				"x509",
				"-req",
				"-in",
				path("leaf.csr"),
				"-CA",
				ca.certPath,
				"-CAkey",
				ca.keyPath,
				"-CAcreateserial",
				"-out",
				path("leaf.pem"),
				"-days",
				"90",
			]);
			const bundle = ca.certPem + read("leaf.pem");
			writeFileSync(path("bundle.pem"), bundle);
			openssl(["crl2pkcs7", "-nocrl", "-certfile", path("bundle.pem"), "-out", path("bundle.p7b"), "-outform", "DER"]);
			return {
				bundlePem: bundle,
				p7bDer: readFileSync(path("bundle.p7b")),
				leafPem: read("leaf.pem"),
				caPem: ca.certPem,
			};
		},
		/** `openssl pkcs12 -export` of a fresh identity, with a password. */
		pkcs12(password: string) {
			const identity = selfSigned("p12-identity");
			openssl([
				"pkcs12",
				"-export",
				"-inkey",
				identity.keyPath,
				"-in",
				identity.certPath,
				"-out",
				path("identity.p12"),
				"-passout",
				`pass:${password}`,
			]);
			return { p12: readFileSync(path("identity.p12")), ...identity };
		},
		/** DER of a PEM certificate. */
		der(certPath: string): Buffer {
			return openssl(["x509", "-in", certPath, "-outform", "DER"]);
		},
	};
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate/-enddate` takes it. */
function asn1Time(date: Date): string {
	return `${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
}
