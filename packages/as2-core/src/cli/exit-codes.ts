import { isAs2Error } from "../errors/index.ts";

/**
 * What `as2kit` exits with, for scripts that trust the exit code (the same table is in
 * `as2kit --help` and the package README).
 */
export const EXIT = {
	/** Done; for verify-mdn: the receipt is authentic, positive and matches what was expected. */
	ok: 0,
	/** A negative result: the message or receipt was read and does not pass (details in the JSON). */
	negative: 1,
	/** A usage error: unknown command or option, a missing or invalid option value. */
	usage: 2,
	/** An input error: a file could not be read or written, a key or certificate file is unreadable. */
	input: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  done (verify-mdn: the receipt passed every check its --help lists)
  1  negative result: parse refused the message, verify-mdn refused the receipt (JSON says why)
  2  usage error: unknown command or option, missing or invalid option value
  3  input error: a file cannot be read or written, a key or certificate file is unreadable`;

/** The command line was wrong: exit 2. */
export class UsageError extends Error {
	override name = "UsageError";
}

/** A file the command was pointed at cannot be used (unreadable key, missing file): exit 3. */
export class InputError extends Error {
	override name = "InputError";
}

/** Node's option parser reports its errors with `ERR_PARSE_ARGS_*` codes. */
function isParseArgsError(error: unknown): boolean {
	const code = (error as { code?: unknown })?.code;
	return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/** A failed system call (ENOENT, EACCES, EISDIR …) carries `syscall`. */
function isSystemError(error: unknown): boolean {
	return typeof (error as { syscall?: unknown })?.syscall === "string";
}

export function exitCodeOf(error: unknown): ExitCode {
	if (error instanceof UsageError || isParseArgsError(error)) return EXIT.usage;
	if (error instanceof InputError || isSystemError(error)) return EXIT.input;
	// The protocol engine refused what it read: the message or receipt does not pass.
	if (isAs2Error(error)) return EXIT.negative;
	return EXIT.input;
}

/** Whether `error` is about the files given rather than the message in them. */
export function isInputFault(error: unknown): boolean {
	return exitCodeOf(error) !== EXIT.negative;
}
