import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describeCertificate, generateSelfSigned } from "../../certs/index.ts";
import { printJson } from "../output.ts";
import { options, required } from "./options.ts";

export async function runKeygen(args: string[]): Promise<void> {
	const v = options(args, {
		name: { type: "string" },
		out: { type: "string" },
		bits: { type: "string" },
		days: { type: "string" },
	});
	const name = required(v, "name");
	const out = required(v, "out");
	const identity = await generateSelfSigned({
		commonName: name,
		bits: v.bits ? Number(v.bits) : 2048,
		days: v.days ? Number(v.days) : 365,
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
}
