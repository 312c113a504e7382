/**
 * Issue #17: the built @as2kit/server with storage-pg on each runtime beside Node 20, each on a
 * fresh PostgreSQL database from the run's test cluster, on 127.0.0.1: on Bun and Deno,
 * `createApp` mounted on their own HTTP servers (test/runtimes/serve-app.mjs); on Node 22 and
 * 24, the server's Node entry as `npm start` runs it (node:http through @hono/node-server, the
 * EPCIS worker threads). Over fetch: register (the identity is made with WebCrypto), create a
 * partner with its certificate, submit an AS2 message signed and encrypted by that partner (so
 * the core's unpack and MDN signing run on the runtime), verify the sync MDN, list the message,
 * download its payload (a file stream served as a web stream) and validate an EPCIS document.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collect, importPrivateKey, matchMdn, pack, parseCertificates, parseMdn } from "@as2kit/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBuiltServer } from "../blackbox/built-server.ts";
import { call, createKey, register } from "../blackbox/clients.ts";
import { createTestDatabase, pgUrl, type TestDatabase } from "../pg/databases.ts";
import { scratchDir } from "../setup/scratch-dirs.ts";
import { type Keys, makeKeys, type NodeVersion, prepareRuntime, RUNTIME_BINARIES_HERE } from "./harness.mjs";
import { INSTALL_TIMEOUT_MS, NODE_VERSIONS, nodeVersionBinary } from "./node-versions.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const START_TIMEOUT_MS = 60_000;
const EDI = "ISA*00*          *00*~GS*PO*ALICE*SERVER~ST*850*0001~\r\n";

const COMMANDS = {
	bun: [join(root, "node_modules/@oven/bun-linux-x64/bin/bun"), []],
	deno: [join(root, "node_modules/@deno/linux-x64-glibc/deno"), ["run", "--allow-all"]],
} as const;

let dir: string;
let keys: Keys;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(() => {
	// Removed after this file by test/setup/remove-scratch-dirs.ts.
	dir = scratchDir("as2kit-runtime-server-");
	keys = makeKeys(dir);
});

afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Without a test PostgreSQL (never under CI: test/pg/global-setup.ts), as the other pg suites, or
// off linux-x64 outside CI, where the runtimes' packages are not installed (harness.mjs).
describe
	.skipIf(pgUrl() === null || !RUNTIME_BINARIES_HERE)
	.each([...(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]), ...NODE_VERSIONS])(
	"the server with storage-pg on %s",
	(runtime) => {
		it(
			"registers, creates a partner, receives its signed and encrypted message with a signed MDN, serves it, validates EPCIS",
			async (ctx) => {
				// Outside CI, Node 22/24 that cannot be installed (offline) skip their row with the reason.
				const missing = await prepareRuntime(runtime);
				if (missing) ctx.skip(missing);
				const base = await startOn(runtime);

				const owner = await register(base);
				const key = await createKey(base, owner.token, {
					scope: "tenant",
					tenant_id: owner.tenantId,
					environment: "live",
					permissions: ["*"],
				});
				const tenantAs2Id = (await call(base, "GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data
					.as2_id;
				const identity = (await call(base, "GET", "/v1/certificates?type=identity", { token: key })).json.data[0];
				const partner = await call(base, "POST", "/v1/partners", {
					token: key,
					// Only where async MDNs would go: this message asks for a sync MDN.
					body: { name: "Alice", as2_id: "ALICE", url: "https://alice.example/as2", sign: true, encrypt: true },
				});
				expect(partner.status, partner.text).toBe(201);
				const certificate = await call(base, "POST", `/v1/partners/${partner.json.data.id}/certificates`, {
					token: key,
					body: { name: "alice", usage: "both", certificate: keys.alice.cert },
				});
				expect(certificate.status, certificate.text).toBe(201);

				const alice = {
					privateKey: importPrivateKey(keys.alice.key),
					certificate: certificateOf(keys.alice.cert),
				};
				const serverCertificate = certificateOf(identity.certificate_pem);
				const message = await pack({
					payload: new TextEncoder().encode(EDI),
					contentType: "application/edi-x12",
					from: "ALICE",
					to: tenantAs2Id,
					sign: { ...alice, digest: "sha256" },
					encrypt: { certificates: [serverCertificate], algorithm: "aes256" },
					mdn: { mode: "sync", signed: ["sha256"] },
				});
				const response = await fetch(`${base}/as2/receive`, {
					method: "POST",
					headers: [...message.headers],
					body: (await collect(message.body.open())) as BodyInit,
					signal: AbortSignal.timeout(30_000),
				});
				expect(response.status).toBe(200);
				const mdn = await parseMdn({
					headers: response.headers,
					body: new Uint8Array(await response.arrayBuffer()),
					partnerCertificates: [serverCertificate],
				});
				expect(mdn.signatureValid).toBe(true);
				expect(mdn.positive, JSON.stringify(mdn.disposition)).toBe(true);
				expect(matchMdn(mdn, { messageId: message.messageId, mic: await message.mic() }).delivered).toBe(true);

				const listed = await call(base, "GET", "/v1/messages", { token: key });
				expect(listed.status, listed.text).toBe(200);
				const received = listed.json.data.find((m: { message_id: string }) => m.message_id === message.messageId);
				expect(received, listed.text).toBeDefined();
				const payload = await fetch(`${base}/v1/messages/${received.id}/payload`, {
					headers: { authorization: `Bearer ${key}` },
					signal: AbortSignal.timeout(30_000),
				});
				expect(payload.status).toBe(200);
				expect(await payload.text()).toBe(EDI);

				// On Node the validator runs on a worker thread (packages/server/src/node/epcis-thread-pool.ts).
				const epcis = await call(base, "POST", "/v1/epcis/validate", {
					token: key,
					body: { document: "<EPCISDocument/>", validation_rules: ["schema_compliance"] },
				});
				expect(epcis.status, epcis.text).toBe(200);
				expect(epcis.json.valid, epcis.text).toBe(false);
			},
			INSTALL_TIMEOUT_MS + 60_000,
		);
	},
);

function certificateOf(pem: string): Uint8Array {
	const [certificate] = parseCertificates(new TextEncoder().encode(pem));
	if (!certificate) throw new Error("no certificate in the PEM text");
	return certificate;
}

/** The server on `runtime`, on a fresh PostgreSQL database; resolves with its base URL. */
async function startOn(runtime: keyof typeof COMMANDS | NodeVersion): Promise<string> {
	if (runtime === "bun" || runtime === "deno") {
		const database: TestDatabase = await createTestDatabase();
		cleanups.push(() => database.drop());
		return startApp(runtime, database.url, scratchDir(`as2kit-${runtime}-blobs-`));
	}
	// better-sqlite3 is built for Node 20's ABI; storage-pg is plain JavaScript.
	const node = nodeVersionBinary(runtime);
	const server = await startBuiltServer({ store: "pg", node });
	cleanups.push(() => server.stop());
	expect(realpathSync(`/proc/${server.pid}/exe`), "the binary serving").toBe(realpathSync(node));
	return server.base;
}

/** Starts serve-app.mjs under `runtime`; resolves with its base URL once it prints its port. */
async function startApp(runtime: keyof typeof COMMANDS, databaseUrl: string, blobDir: string): Promise<string> {
	const [command, args] = COMMANDS[runtime];
	const child = spawn(command, [...args, join(here, "serve-app.mjs"), databaseUrl, blobDir], {
		cwd: root,
		stdio: ["ignore", "pipe", "pipe"],
	});
	cleanups.push(() => stop(child));
	let stdout = "";
	let stderr = "";
	child.stderr.on("data", (chunk) => {
		stderr += chunk;
	});
	const port = await new Promise<number>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${runtime} did not start:\n${stderr}`)), START_TIMEOUT_MS);
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
			const match = /"port":(\d+)/.exec(stdout);
			if (match) {
				clearTimeout(timer);
				resolve(Number(match[1]));
			}
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			reject(new Error(`${runtime} ended with ${code}:\n${stderr}`));
		});
	});
	return `http://127.0.0.1:${port}`;
}

/** SIGTERM (the app closes its pool), then SIGKILL if it has not ended within 10 s. */
function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
		child.on("close", () => {
			clearTimeout(timer);
			resolve();
		});
		child.kill("SIGTERM");
	});
}
