import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "../../../../test/setup/scratch-dirs.ts";

export interface TestPki {
	dir: string;
	caPem: string;
	certPath: string;
	keyPath: string;
}

/**
 * A throwaway CA and a server certificate for 127.0.0.1 and localhost, made by the OpenSSL
 * CLI at test time (no key material is checked in), in a scratch directory removed after the
 * test file.
 */
export function createTestPki(): TestPki {
	const dir = scratchDir("as2kit-pki-");
	const path = (name: string) => join(dir, name);
	const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] });
	openssl(
		["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem")].concat([
			"-subj",
			"/CN=as2kit test CA",
			"-days",
			"2",
			"-addext",
			"basicConstraints=critical,CA:TRUE",
			"-addext",
			"keyUsage=critical,keyCertSign",
		]),
	);
	openssl([
		"req",
		"-newkey",
		"rsa:2048",
		"-nodes",
		"-keyout",
		path("server.key"),
		"-out",
		path("server.csr"),
		"-subj",
		"/CN=127.0.0.1",
	]);
	writeFileSync(path("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
	openssl([
		"x509",
		"-req",
		"-in",
		path("server.csr"),
		"-CA",
		path("ca.pem"),
		"-CAkey",
		path("ca.key"),
		"-CAcreateserial",
		"-out",
		path("server.pem"),
		"-days",
		"2",
		"-extfile",
		path("server.ext"),
	]);
	return {
		dir,
		caPem: readFileSync(path("ca.pem"), "utf8"),
		certPath: path("server.pem"),
		keyPath: path("server.key"),
	};
}
