/**
 * Issue #16, defect 13, end to end: a script builds an AS2 message with `as2kit build`, POSTs it
 * with curl to the built server, and checks the signed receipt the server answers with
 * `as2kit verify-mdn` — trusting its exit code: 0 for the genuine receipt, 1 for the same
 * receipt tampered with, checked against another certificate, or answering other content.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as2kit } from "../../packages/as2-core/test/helpers/cli.ts";
import { scratch } from "../../packages/as2-core/test/helpers/openssl.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, register } from "./clients.ts";

const work = scratch("as2kit-blackbox-cli-");
const path = (name: string) => join(work.dir, name);
let server: BuiltServer;
let mic = "";
let messageId = "";

function ok(run: ReturnType<typeof as2kit>) {
	if (run.code !== 0) throw new Error(`as2kit exited ${run.code}: ${run.stdout}\n${run.stderr}`);
	return run;
}

beforeAll(async () => {
	// The CLI runs synchronously: run it before the first request rather than between two, so a
	// blocked event loop cannot hold an idle kept-alive connection past its time (issue #16:
	// once, on a loaded machine, the next request here met "other side closed").
	ok(as2kit("keygen", "--name", "alice", "--out", work.dir));
	ok(as2kit("keygen", "--name", "mallory", "--out", work.dir));
	server = await startBuiltServer();
	const owner = await register(server.base);
	const key = await createKey(server.base, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	const tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json
		.data.as2_id;
	const identity = (await call(server.base, "GET", "/v1/certificates?type=identity", { token: key })).json.data[0];
	writeFileSync(path("server.cert.pem"), identity.certificate_pem);

	const partner = await call(server.base, "POST", "/v1/partners", {
		token: key,
		// The URL is only where MDNs would go; this test asks for sync MDNs.
		body: { name: "Alice", as2_id: "ALICE", url: "https://alice.example/as2", sign: true, encrypt: false },
	});
	expect(partner.status, partner.text).toBe(201);
	const certificate = await call(server.base, "POST", `/v1/partners/${partner.json.data.id}/certificates`, {
		token: key,
		body: { name: "alice", usage: "both", certificate: readFileSync(path("alice.cert.pem"), "utf8") },
	});
	expect(certificate.status, certificate.text).toBe(201);

	writeFileSync(path("order.x12"), "ISA*00*          *00*~GS*PO*ALICE*SERVER~ST*850*0001~\r\n");
	const built = ok(
		as2kit(
			"build",
			"--payload",
			path("order.x12"),
			"--from",
			"ALICE",
			"--to",
			tenantAs2Id,
			"--sign",
			"sha256",
			"--key",
			path("alice.key.pem"),
			"--cert",
			path("alice.cert.pem"),
			"--content-type",
			"application/edi-x12",
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
	mic = `${built.json.mic}, ${built.json.mic_algorithm}`;
	messageId = built.json.message_id;
	// curl sends the headers file as it is (-H @file) and writes the answer's head and body.
	const posted = await curl([
		"-H",
		`@${path("msg.headers")}`,
		"--data-binary",
		`@${path("msg.body")}`,
		"-D",
		path("mdn.headers"),
		"-o",
		path("mdn.body"),
		"-w",
		"%{http_code}",
		`${server.base}/as2/receive`,
	]);
	expect(posted.stdout).toBe("200");
}, 120_000);

afterAll(async () => {
	await server?.stop();
	work.cleanup();
});

const verify = (body: string, ...extra: string[]) =>
	as2kit("verify-mdn", "--headers", path("mdn.headers"), "--body", path(body), ...extra);

describe("as2kit verify-mdn on the built server's receipt", () => {
	it("exits 0 for the genuine signed receipt, matching the MIC and Message-ID build printed", () => {
		const run = verify(
			"mdn.body",
			"--partner-cert",
			path("server.cert.pem"),
			"--expect-mic",
			mic,
			"--expect-message-id",
			messageId,
		);
		expect(run.code, run.stdout).toBe(0);
		expect(run.json).toMatchObject({ accepted: true, signed: true, signature_valid: true, mic_matches: true });
	});

	it("exits 1 for the receipt with its disposition rewritten", () => {
		const body = readFileSync(path("mdn.body"), "latin1");
		const forged = body.replace(/; processed(\r?\n)/, "; processed/error: authentication-failed$1");
		expect(forged).not.toBe(body);
		writeFileSync(path("forged.body"), forged, "latin1");
		const run = verify("forged.body", "--partner-cert", path("server.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(1);
		expect(run.json).toMatchObject({ accepted: false, signature_valid: false });
	});

	it("exits 1 when checked against a certificate that did not sign it", () => {
		const run = verify("mdn.body", "--partner-cert", path("mallory.cert.pem"), "--expect-mic", mic);
		expect(run.code).toBe(1);
	});

	it("exits 1 when the receipt's MIC is not the one of the message this script sent", () => {
		const run = verify(
			"mdn.body",
			"--partner-cert",
			path("server.cert.pem"),
			"--expect-mic",
			"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=, sha-256",
		);
		expect(run.code).toBe(1);
		expect(run.json.problems).toEqual([expect.stringMatching(/Received-Content-MIC/)]);
	});
});
