import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describeCertificate, generateSelfSigned } from "../../certs/index.ts";
import { isAs2Error } from "../../errors/index.ts";
import { defineCommand, required } from "../command.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { printJson } from "../output.ts";
import { countOption } from "./options.ts";

export const keygen = defineCommand({
	name: "keygen",
	summary: "make an RSA key and a self-signed certificate",
	usage: `as2kit keygen --name N --out DIR [--bits 2048] [--days 365]

Writes DIR/N.key.pem (mode 0600) and DIR/N.cert.pem, a self-signed certificate for CN=N.

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
		await writeFile(keyPath, identity.privateKeyPem, { mode: 0o600 });
		await writeFile(certPath, identity.certificatePem);
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
