import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as2kit, type CliRun } from "./helpers/cli.ts";
import { openssl, scratch } from "./helpers/openssl.ts";

/** `as2kit` as a script runs it, judged by its exit code (helpers/cli.ts). */
const COMMANDS = ["keygen", "build", "parse", "mdn", "verify-mdn"];
const work = scratch("as2kit-cli-exit-");
const path = (name: string) => join(work.dir, name);

function ok(run: CliRun): CliRun {
	if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stdout}\n${run.stderr}`);
	return run;
}

/** `as2kit mdn` for the message built in beforeAll, into `<name>.headers` / `<name>.body`. */
function answer(name: string, ...extra: string[]): CliRun {
	return ok(
		as2kit(
			"mdn",
			"--headers",
			path("msg.headers"),
			"--body",
			path("msg.body"),
			"--partner-cert",
			path("alice.cert.pem"),
			"--out-headers",
			path(`${name}.headers`),
			"--out-body",
			path(`${name}.body`),
			...extra,
		),
	);
}

const verify = (name: string, ...extra: string[]) =>
	as2kit("verify-mdn", "--headers", path(`${name}.headers`), "--body", path(`${name}.body`), ...extra);

let mic = "";

beforeAll(() => {
	ok(as2kit("keygen", "--name", "alice", "--out", work.dir));
	ok(as2kit("keygen", "--name", "bob", "--out", work.dir));
	// Mallory made her key with OpenSSL and calls herself bob.
	openssl([
		"req",
		"-x509",
		"-newkey",
		"rsa:2048",
		"-nodes",
		"-subj",
		"/CN=bob",
		"-days",
		"2",
		"-keyout",
		path("mallory.key.pem"),
		"-out",
		path("mallory.cert.pem"),
	]);
	writeFileSync(path("order.edi"), "UNA:+.? 'UNB+UNOC:3+ALICE+BOB'\r\n");
	const built = ok(
		as2kit(
			"build",
			"--payload",
			path("order.edi"),
			"--from",
			"ALICE",
			"--to",
			"BOB",
			"--sign",
			"sha256",
			"--key",
			path("alice.key.pem"),
			"--cert",
			path("alice.cert.pem"),
			"--mdn",
			"sync",
			"--signed-mdn",
			"sha256",
			"--out-headers",
			path("msg.headers"),
			"--out-body",
			path("msg.body"),
		),
	);
	mic = `${built.json.mic}, sha-256`;
	answer("good", "--key", path("bob.key.pem"), "--cert", path("bob.cert.pem"));
	answer("unsigned");
	answer("forged", "--key", path("mallory.key.pem"), "--cert", path("mallory.cert.pem"));
	answer(
		"negative",
		"--key",
		path("bob.key.pem"),
		"--cert",
		path("bob.cert.pem"),
		"--status",
		"error:decryption-failed",
	);
}, 120_000);
afterAll(() => work.cleanup());

/** A copy of the good MDN with `edit` applied to its body. */
function tampered(name: string, edit: (body: string) => string): void {
	writeFileSync(path(`${name}.headers`), readFileSync(path("good.headers")));
	const body = readFileSync(path("good.body"), "latin1");
	const changed = edit(body);
	expect(changed).not.toBe(body);
	writeFileSync(path(`${name}.body`), changed, "latin1");
}

describe("as2kit verify-mdn exit codes", () => {
	it("exits 0 for a signed, positive MDN whose MIC is the one expected", () => {
		const run = verify("good", "--partner-cert", path("bob.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(0);
		expect(run.json).toMatchObject({
			accepted: true,
			problems: [],
			signature_valid: true,
			mic_matches: true,
			positive: true,
		});
	});

	it("exits 1 when the signed report was altered (a MIC swapped in)", () => {
		tampered("altered", (body) => body.replace(/Received-Content-MIC: [A-Za-z0-9+/]{4}/, "Received-Content-MIC: AAAA"));
		const run = verify("altered", "--partner-cert", path("bob.cert.pem"));
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signature_valid: false });
		expect(run.json.problems.join()).toMatch(/signature does not verify/);
	});

	it("exits 1 when the signature bytes were altered", () => {
		tampered("bad-signature", (body) => {
			// The signature value ends the SignedData: change one base64 digit of its last full line.
			const lines = body.split("\r\n");
			const at = lines.findLastIndex((line) => /^[A-Za-z0-9+/]{76}$/.test(line));
			const line = lines[at]!;
			lines[at] = `${line.slice(0, 40)}${line[40] === "A" ? "B" : "A"}${line.slice(41)}`;
			return lines.join("\r\n");
		});
		const run = verify("bad-signature", "--partner-cert", path("bob.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signature_valid: false, mic_matches: true });
	});

	it("exits 1 for an MDN signed by someone else (an OpenSSL key claiming the partner's name)", () => {
		const run = verify("forged", "--partner-cert", path("bob.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signed: true, signature_valid: false });
	});

	it("exits 1 for the genuine MDN checked against the wrong partner certificate", () => {
		const run = verify("good", "--partner-cert", path("alice.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signature_valid: false });
	});

	it("exits 1 when the MIC does not match the message sent", () => {
		const other = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=, sha-256";
		const run = verify("good", "--partner-cert", path("bob.cert.pem"), "--expect-mic", other);
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signature_valid: true, mic_matches: false });
		expect(run.json.problems).toEqual([expect.stringMatching(/Received-Content-MIC .* is not the expected/)]);
	});

	it("exits 1 when the MDN answers another message than the one expected", () => {
		const run = verify("good", "--partner-cert", path("bob.cert.pem"), "--expect-message-id", "<other@example.com>");
		expect(run.code).toBe(1);
		expect(run.json.problems).toEqual([expect.stringMatching(/Original-Message-ID/)]);
	});

	it("exits 1 for a negative disposition, however well signed", () => {
		const run = verify("negative", "--partner-cert", path("bob.cert.pem"));
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, positive: false, signature_valid: true });
	});

	it("exits 1 for an unsigned MDN, unless --allow-unsigned says the partner sends them", () => {
		const strict = verify("unsigned", "--partner-cert", path("bob.cert.pem"), "--expect-mic", mic);
		expect(strict.code).toBe(1);
		expect(strict.json).toMatchObject({ accepted: false, signed: false, problems: ["the MDN is not signed"] });

		const allowed = verify("unsigned", "--allow-unsigned", "--expect-mic", mic);
		expect(allowed.code).toBe(0);
		expect(allowed.json).toMatchObject({ accepted: true, signed: false, mic_matches: true });

		// Allowing unsigned MDNs does not let a broken signature through.
		const forged = verify("forged", "--allow-unsigned", "--partner-cert", path("bob.cert.pem"));
		expect(forged.code).toBe(1);
	});

	it("exits 1 with INVALID_MDN for a body that is no MDN", () => {
		writeFileSync(path("junk.headers"), "Content-Type: multipart/report; boundary=x\r\n");
		writeFileSync(path("junk.body"), "not an MDN");
		const run = verify("junk", "--partner-cert", path("bob.cert.pem"));
		expect(run.code).toBe(1);
		expect(run.json.error.code).toBe("INVALID_MDN");
	});
});

describe("as2kit usage and input errors", () => {
	it.each([
		["a missing --body", ["verify-mdn", "--headers", "h", "--partner-cert", "p"]],
		[
			"no --partner-cert (a signature checked against itself proves nothing)",
			["verify-mdn", "--headers", "h", "--body", "b"],
		],
		["an unknown option", ["verify-mdn", "--headers", "h", "--body", "b", "--partner-cert", "p", "--bogus"]],
		[
			"a malformed --expect-mic",
			["verify-mdn", "--headers", "h", "--body", "b", "--partner-cert", "p", "--expect-mic", "nope"],
		],
		["an option without its value", ["parse", "--headers"]],
		["a bad --at", ["parse", "--headers", "h", "--body", "b", "--out-payload", "o", "--at", "yesterday"]],
		[
			"an unknown algorithm",
			[
				"build",
				"--payload",
				"p",
				"--from",
				"A",
				"--to",
				"B",
				"--sign",
				"md5",
				"--key",
				"k",
				"--out-headers",
				"h",
				"--out-body",
				"b",
			],
		],
		["a bad --bits", ["keygen", "--name", "x", "--out", "d", "--bits", "many"]],
		[
			"a bad --status",
			["mdn", "--headers", "h", "--body", "b", "--status", "fine", "--out-headers", "h2", "--out-body", "b2"],
		],
		["a stray argument", ["keygen", "extra"]],
	])("exits 2 for %s, with a USAGE error and a pointer to --help", (_, args) => {
		const run = as2kit(...args);
		expect(run.code).toBe(2);
		expect(run.json.error.code).toMatch(/^(USAGE|UNSUPPORTED_ALGORITHM)$/);
		expect(run.stderr).toContain(`as2kit ${args[0]} --help`);
	});

	it("keygen refuses a --name that would put its files outside --out (exit 2), writing nothing", () => {
		for (const name of ["../escaped", "sub/dir", "..\\win", ".", ".."]) {
			const run = as2kit("keygen", "--name", name, "--out", path("names"));
			expect(run.code, name).toBe(2);
			expect(run.json.error.message).toContain("--name");
		}
		expect(() => readFileSync(join(work.dir, "escaped.key.pem"))).toThrow(/ENOENT/);
		// A name with spaces and punctuation is a file name like any other.
		expect(ok(as2kit("keygen", "--name", "Acme Corp. (2026)", "--out", path("names"))).json.key).toBe(
			path("names/Acme Corp. (2026).key.pem"),
		);
	});

	it("keygen never overwrites a key: the same --name and --out again is exit 3, the key unchanged", () => {
		const key = readFileSync(path("alice.key.pem"), "utf8");
		const again = as2kit("keygen", "--name", "alice", "--out", work.dir);
		expect(again.code).toBe(3);
		expect(again.json.error.message).toContain("alice.key.pem");
		expect(readFileSync(path("alice.key.pem"), "utf8")).toBe(key);
	});

	it("exits 2 for an unknown command, listing the commands", () => {
		const run = as2kit("verify");
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("verify-mdn");
	});

	it("exits 3 when a file is missing or a certificate unreadable, never 1", () => {
		const missing = verify("nothing", "--partner-cert", path("bob.cert.pem"));
		expect(missing.code).toBe(3);
		expect(missing.json.error).toMatchObject({ code: "INPUT", message: expect.stringContaining("ENOENT") });
		for (const body of [path("nothing.body"), work.dir]) {
			const run = as2kit(
				"verify-mdn",
				"--headers",
				path("good.headers"),
				"--body",
				body,
				"--partner-cert",
				path("bob.cert.pem"),
			);
			expect(run.code).toBe(3);
		}

		writeFileSync(path("garbage.pem"), "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
		const garbage = verify("good", "--partner-cert", path("garbage.pem"));
		expect(garbage.code).toBe(3);
		expect(garbage.json.error.message).toContain("garbage.pem");

		const noKey = as2kit(
			"parse",
			"--headers",
			path("msg.headers"),
			"--body",
			path("msg.body"),
			"--key",
			path("garbage.pem"),
			"--cert",
			path("bob.cert.pem"),
			"--out-payload",
			path("never.edi"),
		);
		expect(noKey.code).toBe(3);
	});

	it("mdn answers a message it cannot verify with a negative MDN (exit 0), but a missing file is exit 3", () => {
		const refused = answer("refused", "--require-encrypted");
		expect(refused.json.disposition).toBe("processed/error: insufficient-message-security");
		const missing = as2kit(
			"mdn",
			"--headers",
			path("msg.headers"),
			"--body",
			path("no-such.body"),
			"--out-headers",
			path("x.headers"),
			"--out-body",
			path("x.body"),
		);
		expect(missing.code).toBe(3);
	});
});

describe("as2kit --help", () => {
	it.each(
		COMMANDS.flatMap((name) => [
			[name, "--help"],
			[name, "-h"],
		]),
	)("%s %s prints the command's usage on stdout and exits 0", (name, flag) => {
		const run = as2kit(name, flag);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(new RegExp(`^as2kit ${name} `));
		expect(run.stdout).toContain("--");
		expect(run.stderr).toBe("");
	});

	it("wins over options that would not parse, but not over an option's value", () => {
		expect(as2kit("build", "--bogus", "--help").code).toBe(0);
		expect(as2kit("parse", "--headers", "h", "-h").stdout).toMatch(/^as2kit parse /);
		// `--subject -h` is a subject: Node's parser asks for `--subject=-h`, a usage error.
		expect(as2kit("build", "--subject", "-h").code).toBe(2);
	});

	it("as2kit --help, -h, help and no arguments list every command and the exit codes", () => {
		for (const args of [["--help"], ["-h"], ["help"], []]) {
			const run = as2kit(...args);
			expect(run.code).toBe(0);
			for (const name of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
			expect(run.stdout).toMatch(/^ {2}3 {2}input error/m);
		}
		expect(as2kit("help", "verify-mdn").stdout).toMatch(/^as2kit verify-mdn /);
	});
});
