/**
 * Issue #18, section 5: three reference servers as real processes on one PostgreSQL database
 * and one S3 bucket (`BLOB_URL`, s3rver on loopback), with NO shared directory: each has a
 * BLOB_DIR of its own, which must never be created. Payloads uploaded to one instance are sent
 * by whichever instance's worker claims the job and downloaded from another; one instance is
 * SIGKILLed midway and the others deliver what it had accepted, reading its payloads from S3.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Peer, startPeer } from "../../packages/server/test/helpers/peers.ts";
import { createTestPki, type TestPki } from "../../packages/server/test/helpers/tls.ts";
import { BOUNDARY, multipartBody } from "../blackbox/upload-requests.ts";
import { createTestDatabase, pgUrl, type TestDatabase } from "../pg/databases.ts";
import { type S3TestServer, s3Env, startS3Server } from "../s3/s3-server.ts";
import { type Deployment, deployment, type Instance, startInstance } from "./instances.ts";

const MESSAGES = 45;
/** Every ninth payload spans two 5 MiB parts: a multipart upload read back by ranges. */
const LARGE_EVERY = 9;
const PREFIX = "instances";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** One request to an instance over its TLS, with a multipart body or none; the answer's bytes. */
function exchange(
	instance: Instance,
	ca: string,
	method: string,
	path: string,
	token: string,
	form?: Uint8Array,
): Promise<{ status: number; bytes: Buffer }> {
	return new Promise((resolve, reject) => {
		const req = request(
			new URL(path, instance.baseUrl),
			{
				method,
				ca,
				timeout: 60_000,
				headers: {
					authorization: `Bearer ${token}`,
					...(form
						? { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "content-length": form.byteLength }
						: {}),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on("data", (chunk: Buffer) => chunks.push(chunk));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
				res.on("error", reject);
			},
		);
		req.on("timeout", () => req.destroy(new Error("request timed out")));
		req.on("error", reject);
		req.end(form);
	});
}

describe.skipIf(pgUrl() === null)("three instances on PostgreSQL + S3, no shared directory", () => {
	let database: TestDatabase;
	let dir: string;
	let pki: TestPki;
	let d: Deployment;
	let s3: S3TestServer;
	let receiver: Peer;
	let sql: pg.Pool;
	const instances: Instance[] = [];
	const ownBlobDir = (name: string) => join(dir, name, "blobs-never-used");

	beforeAll(async () => {
		database = await createTestDatabase();
		sql = new pg.Pool({ connectionString: database.url, max: 2 });
		dir = mkdtempSync(join(tmpdir(), "as2kit-s3-instances-"));
		pki = createTestPki();
		d = deployment(database.url, dir, pki);
		s3 = await startS3Server();
		receiver = await startPeer("Receiver", pki);
		// One after another: the first applies the migrations, the others find them applied.
		for (const name of ["one", "two", "three"]) {
			instances.push(await startInstance(d, name, { ...s3Env(s3, PREFIX), BLOB_DIR: ownBlobDir(name) }));
		}
	});

	afterAll(async () => {
		await Promise.all(instances.map((instance) => instance.stop()));
		await receiver?.server.close();
		await s3?.stop();
		await sql?.end();
		await database?.drop();
		rmSync(dir, { recursive: true, force: true });
		if (pki) rmSync(pki.dir, { recursive: true, force: true });
	});

	it(`accepts ${MESSAGES} messages on all three, delivers each once with the same bytes, one instance killed midway`, async () => {
		const call = instances[0]!.call;
		const registered = await call("POST", "/auth/register", {
			body: {
				name: "S3 sender",
				email: `${randomUUID()}@example.com`,
				password: "long password",
				password_confirmation: "long password",
			},
		});
		expect(registered.status).toBe(201);
		const created = await call("POST", "/v1/api-keys", {
			token: registered.json.token,
			body: { name: "k", scope: "account", environment: "live", permissions: ["*"] },
		});
		const key: string = created.json.data.key;
		const tenant = (await call("GET", `/v1/tenants/${registered.json.tenant.id}`, { token: key })).json.data;
		const identity = (await call("GET", "/v1/certificates?type=identity", { token: key })).json.data[0];
		const partner = await call("POST", "/v1/partners", {
			token: key,
			body: {
				name: "Receiver",
				as2_id: receiver.as2Id,
				url: `${receiver.baseUrl}/as2/receive`,
				tls: { ca_certificate: pki.caPem },
				sign: true,
				encrypt: true,
				mdn_mode: "sync",
			},
		});
		expect(partner.status).toBe(201);
		const partnerId: string = partner.json.data.id;
		await call("POST", `/v1/partners/${partnerId}/certificates`, {
			token: key,
			body: { name: "r", usage: "both", certificate: receiver.identityPem },
		});
		const back = await receiver.call("POST", "/v1/partners", {
			name: "Sender",
			as2_id: tenant.as2_id,
			url: `${instances[0]!.baseUrl}/as2/receive`,
		});
		await receiver.call("POST", `/v1/partners/${back.json.data.id}/certificates`, {
			name: "s",
			usage: "both",
			certificate: identity.certificate_pem,
		});

		/** Message id → SHA-256 of the payload sent. */
		const sent = new Map<string, string>();
		const victim = instances[2]!;
		for (let n = 0; n < MESSAGES; n++) {
			// The victim takes the first third of the messages, then dies with their jobs likely still queued.
			if (n === MESSAGES / 3) await victim.kill();
			const target = n < MESSAGES / 3 ? instances[n % 3]! : instances[n % 2]!;
			const bytes = randomBytes(n % LARGE_EVERY === 0 ? 6 * 1024 * 1024 + n : 2_000 + n);
			const form = multipartBody([
				{ name: "partner_id", value: partnerId },
				{ name: "content_type", value: "application/zip" },
				{ name: "file", value: bytes, filename: `file-${n}.bin`, type: "application/octet-stream" },
			]);
			const r = await exchange(target, pki.caPem, "POST", "/v1/messages", key, form);
			expect(r.status, r.bytes.toString()).toBe(202);
			sent.set(JSON.parse(r.bytes.toString()).data.id, sha256(bytes));
		}

		// Every message delivered (the victim's jobs after its lease, by the others).
		for (const deadline = Date.now() + 240_000; Date.now() < deadline; ) {
			const { rows } = await sql.query("select count(*)::int as n from messages where status = 'delivered'");
			if (rows[0].n === MESSAGES) break;
			await new Promise((r) => setTimeout(r, 250));
		}
		const statuses = await sql.query("select status, error_code, count(*)::int as n from messages group by 1, 2");
		expect(statuses.rows).toEqual([{ status: "delivered", error_code: null, n: MESSAGES }]);

		// The receiver got each payload once, with the bytes that were sent.
		const inbound = await receiver.server.store.messages.list(
			receiver.tenantId,
			{ direction: "inbound" },
			{ page: 1, perPage: 100 },
		);
		expect(inbound.total).toBe(MESSAGES);
		const received: string[] = [];
		for (const message of inbound.items) {
			const download = await receiver.server.app.request(`/v1/messages/${message.id}/payload`, {
				headers: { authorization: `Bearer ${receiver.key}` },
			});
			expect(download.status).toBe(200);
			received.push(sha256(new Uint8Array(await download.arrayBuffer())));
		}
		expect(received.sort()).toEqual([...sent.values()].sort());

		// Any survivor serves any payload, whichever instance took it in.
		const survivors = instances.slice(0, 2);
		for (const [i, [id, expected]] of [...sent].entries()) {
			const download = await exchange(survivors[i % 2]!, pki.caPem, "GET", `/v1/messages/${id}/payload`, key);
			expect(download.status).toBe(200);
			expect(sha256(download.bytes)).toBe(expected);
		}

		// Nothing in any instance's own directory, no multipart upload left open in S3.
		for (const name of ["one", "two", "three"]) expect(existsSync(ownBlobDir(name))).toBe(false);
		expect(s3.openUploads()).toEqual([]);
		expect(s3.objectKeys().filter((k) => k.startsWith(`${PREFIX}/`)).length).toBeGreaterThanOrEqual(MESSAGES);
	}, 400_000);
});
