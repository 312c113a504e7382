import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describeCertificate, generateSelfSigned } from "../../certs/index.ts";
import { isAs2Error } from "../../errors/index.ts";
import { defineCommand, required } from "../command.ts";
import { EXIT, InputError, UsageError } from "../exit-codes.ts";
import { printJson } from "../output.ts";
import { countOption } from "./options.ts";

export const keygen = defineCommand({
	name: "keygen",
	summary: "make an RSA key and a self-signed certificate",
	usage: `as2kit keygen --name N --out DIR [--bits 2048] [--days 365]

Writes DIR/N.key.pem (mode 0600) and DIR/N.cert.pem, a self-signed certificate for CN=N;
neither may exist already (exit 3), and N cannot contain / or \\.

  --name N      the certificate's common name and the files' base name (required)
  --out DIR     where to write them; created if missing (required)
  --bits B      RSA key size (default 2048)
  --days D      validity from now (default 365)

Prints {key, certificate, subject, serial_number, fingerprint, expires_at}.`,
	options: {
		name: { type: "string" },
		out: { type: "string" },
		bits: { type: "string" },
		days: { type: "string" },
	},
	async run(v) {
		const name = required(v, "name");
		const out = required(v, "out");
		// The name is the files' base name too: one that names a directory would write the key
		// outside --out (`../x`, `a/b`), or over another file.
		if (/[/\\\0]/.test(name) || name === "." || name === "..")
			throw new UsageError(
				`--name is the files' base name too: it cannot contain / or \\, nor be . or .. (got ${JSON.stringify(name)})`,
			);
		const identity = await generateSelfSigned({
			commonName: name,
			bits: countOption(v.bits, "bits", 2048),
			days: countOption(v.days, "days", 365),
		}).catch((error) => {
			// Only the options went in: a key size the engine refuses is a usage error.
			throw isAs2Error(error) ? new UsageError(error.message) : error;
		});
		await mkdir(out, { recursive: true });
		const keyPath = join(out, `${name}.key.pem`);
		const certPath = join(out, `${name}.cert.pem`);
		// Never over an existing key or certificate ("wx"): a key in use with partners would be lost.
		await writeNew(keyPath, identity.privateKeyPem, 0o600);
		await writeNew(certPath, identity.certificatePem, 0o644);
		const info = describeCertificate(identity.certificate);
		printJson({
			key: keyPath,
			certificate: certPath,
			subject: info.subject,
			serial_number: info.serialNumber,
			fingerprint: info.fingerprint,
			expires_at: info.notAfter.toISOString(),
		});
		return EXIT.ok;
	},
});

async function writeNew(path: string, text: string, mode: number): Promise<void> {
	try {
		await writeFile(path, text, { mode, flag: "wx" });
	} catch (error) {
		if ((error as { code?: string }).code === "EEXIST")
			throw new InputError(`${path} already exists: keygen does not overwrite a key or certificate`);
		throw error;
	}
}
