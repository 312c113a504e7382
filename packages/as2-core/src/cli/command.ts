import { type ParseArgsConfig, parseArgs } from "node:util";
import { EXIT, type ExitCode, UsageError } from "./exit-codes.ts";

export type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

type Values<S extends OptionSpec> = ReturnType<
	typeof parseArgs<{ args: string[]; options: S; strict: true }>
>["values"];

export interface Command {
	name: string;
	/** One line for `as2kit --help`. */
	summary: string;
	/** What `as2kit <name> --help` prints. */
	usage: string;
	/** Runs the command with its arguments; resolves with the exit code (see exit-codes.ts). */
	run(args: string[]): Promise<ExitCode>;
}

const HELP = { help: { type: "boolean", short: "h" } } as const satisfies ParseArgsConfig["options"];

/**
 * A command whose options are parsed strictly (an unknown option or a missing value is a
 * usage error) and which answers `--help` / `-h` with its usage wherever it appears, even
 * next to options that would not parse.
 */
export function defineCommand<S extends OptionSpec>(definition: {
	name: string;
	summary: string;
	usage: string;
	options: S;
	run(values: Values<S>): Promise<ExitCode>;
}): Command {
	return {
		name: definition.name,
		summary: definition.summary,
		usage: definition.usage,
		async run(args) {
			if (helpRequested(args, definition.options)) {
				console.log(definition.usage);
				return EXIT.ok;
			}
			const { values } = parseArgs({ args, options: definition.options, strict: true, allowPositionals: false });
			return definition.run(values as Values<S>);
		},
	};
}

/**
 * A lenient pass over the arguments: `--subject -h` is a subject, `--bogus --help` is a call
 * for help.
 */
function helpRequested(args: string[], options: OptionSpec): boolean {
	const { values } = parseArgs({ args, options: { ...options, ...HELP }, strict: false, allowPositionals: true });
	return values.help === true;
}

export function required(values: Record<string, unknown>, name: string): string {
	const value = values[name];
	if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
	return value;
}

/** An option that takes one of a few words. */
export function oneOf<T extends string>(
	value: string | undefined,
	name: string,
	choices: readonly T[],
	fallback: T,
): T {
	if (value === undefined) return fallback;
	if (!choices.includes(value as T)) throw new UsageError(`--${name} takes ${choices.join(", ")}`);
	return value as T;
}
