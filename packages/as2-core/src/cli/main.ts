#!/usr/bin/env node
import { runBuild } from "./commands/build.ts";
import { runKeygen } from "./commands/keygen.ts";
import { runMdn } from "./commands/mdn.ts";
import { runParse } from "./commands/parse.ts";
import { runVerifyMdn } from "./commands/verify-mdn.ts";
import { printError } from "./output.ts";

const USAGE = `as2kit — build, read and answer AS2 messages (RFC 4130) from the command line

  as2kit keygen --name N --out DIR [--bits 2048] [--days 365]
  as2kit build --payload FILE --from ID --to ID [--sign ALG --key K --cert C [--key-pass P]]
               [--encrypt ALG --recipient-cert P [--key-encryption rsa|oaep]]
               [--compress before-sign|after-sign] [--mdn none|sync|async --mdn-url URL]
               [--signed-mdn ALG] [--content-type T] [--filename N] [--subject S]
               [--no-signed-attributes] [--no-algorithm-protection] [--transfer-encoding binary|base64]
               --out-headers H --out-body B
  as2kit parse --headers H --body B [--key K --cert C [--key-pass P]] [--partner-cert P]
               [--require-signed] [--require-encrypted] [--at DATETIME] --out-payload F
  as2kit mdn --headers H --body B [--key K --cert C [--key-pass P]] [--partner-cert P]
             [--status processed|error:MODIFIER|warning:TEXT|failed:TEXT] [--at DATETIME]
             --out-headers H2 --out-body B2
  as2kit verify-mdn --headers H --body B --partner-cert P [--expect-mic "MIC, ALG"] [--at DATETIME]

ALG: sha1, sha256, sha384, sha512 (sign: also sha256-pss …); 3des, aes128, aes192, aes256,
aes128-gcm, aes256-gcm. Output is JSON on stdout; failures are JSON with a code, exit 1.`;

const commands: Record<string, (args: string[]) => Promise<void>> = {
	keygen: runKeygen,
	build: runBuild,
	parse: runParse,
	mdn: runMdn,
	"verify-mdn": runVerifyMdn,
};

async function main(argv: string[]): Promise<void> {
	const [name, ...rest] = argv;
	if (!name || name === "--help" || name === "-h" || name === "help") {
		console.log(USAGE);
		return;
	}
	const command = commands[name];
	if (!command) {
		console.error(`unknown command "${name}"\n\n${USAGE}`);
		process.exitCode = 2;
		return;
	}
	try {
		await command(rest);
	} catch (error) {
		printError(error);
		process.exitCode = 1;
	}
}

await main(process.argv.slice(2));
