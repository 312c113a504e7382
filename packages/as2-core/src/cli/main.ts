#!/usr/bin/env node
import type { Command } from "./command.ts";
import { build } from "./commands/build.ts";
import { keygen } from "./commands/keygen.ts";
import { mdn } from "./commands/mdn.ts";
import { parse } from "./commands/parse.ts";
import { verifyMdn } from "./commands/verify-mdn.ts";
import { EXIT, EXIT_CODES_HELP, type ExitCode, exitCodeOf } from "./exit-codes.ts";
import { printError } from "./output.ts";

const COMMANDS: Command[] = [keygen, build, parse, mdn, verifyMdn];

const USAGE = `as2kit — build, read and answer AS2 messages (RFC 4130) from the command line

Usage: as2kit <command> [options]      as2kit <command> --help   for the command's options

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)}${c.summary}`).join("\n")}

Output is JSON on stdout; a failure is {"error": {"code", "message", "disposition"?}}.

${EXIT_CODES_HELP}`;

async function main(argv: string[]): Promise<ExitCode> {
	const [name, ...rest] = argv;
	if (name === undefined || name === "--help" || name === "-h" || name === "help") {
		const command = name === "help" ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
		console.log(command ? command.usage : USAGE);
		return EXIT.ok;
	}
	const command = COMMANDS.find((c) => c.name === name);
	if (!command) {
		console.error(`as2kit: unknown command "${name}"\n\n${USAGE}`);
		return EXIT.usage;
	}
	try {
		return await command.run(rest);
	} catch (error) {
		printError(error);
		const code = exitCodeOf(error);
		if (code === EXIT.usage) console.error(`Run "as2kit ${command.name} --help" for its options.`);
		return code;
	}
}

process.exitCode = await main(process.argv.slice(2));
