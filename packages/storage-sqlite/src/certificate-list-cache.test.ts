import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import { afterEach, beforeEach, expect, it } from "vitest";
import { certificate } from "../../../test/storage/suites/partner-fixtures.ts";
import { createSqliteStore } from "./create-store.ts";

// The cache of certificates.listFor (certificate-list-cache.ts): whatever it keeps, every
// read must give what the database holds at that moment.
let dir: string;
let stores: As2Store[] = [];
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-certificate-lists-"));
});
afterEach(async () => {
	for (const store of stores) await store.close();
	stores = [];
	rmSync(dir, { recursive: true, force: true });
});

/** Two stores on one file: two connections, as two processes would have. */
function twoProcesses(): [As2Store, As2Store] {
	const url = join(dir, "as2.sqlite");
	const options = { url, backgroundCheckpoints: false, searchIndexing: false } as const;
	stores = [createSqliteStore(options), createSqliteStore(options)];
	return [stores[0]!, stores[1]!];
}

const ofPartner = async (store: As2Store) =>
	(await store.certificates.listFor({ partnerId: "prt_000001" })).map((c) => `${c.id}:${c.active}`);

it("gives at once what another connection changed: an update, a new certificate, a deletion", async () => {
	const [reader, writer] = twoProcesses();
	await writer.certificates.create(certificate("cert_000001"));
	expect(await ofPartner(reader)).toEqual(["cert_000001:true"]);

	await writer.certificates.update("cert_000001", { active: false, updatedAt: new Date() });
	expect(await ofPartner(reader)).toEqual(["cert_000001:false"]);

	await writer.certificates.create(certificate("cert_000002", { notBefore: new Date("2026-06-01T00:00:00Z") }));
	expect(await ofPartner(reader)).toEqual(["cert_000002:true", "cert_000001:false"]);

	await writer.certificates.softDelete("cert_000002", new Date());
	expect(await ofPartner(reader)).toEqual(["cert_000001:false"]);
});

it("keeps nothing a caller changed in a record it was given", async () => {
	const [store] = twoProcesses();
	await store.certificates.create(certificate("cert_000001"));
	const [first] = await store.certificates.listFor({ partnerId: "prt_000001" });
	first!.active = false;
	expect(await ofPartner(store)).toEqual(["cert_000001:true"]);
});

it("keeps nothing read inside a transaction that rolled back", async () => {
	const [store, other] = twoProcesses();
	await store.certificates.create(certificate("cert_000001"));
	expect(await ofPartner(store)).toEqual(["cert_000001:true"]);
	await expect(
		store.transaction(async (tx) => {
			await tx.certificates.update("cert_000001", { active: false, updatedAt: new Date() });
			expect(await ofPartner(tx)).toEqual(["cert_000001:false"]);
			throw new Error("roll back");
		}),
	).rejects.toThrow("roll back");
	// Another change brings the version to the number the rolled-back one had: the list read
	// must be the committed one, not the rolled-back one.
	await other.certificates.create(certificate("cert_000002", { partnerId: "prt_000002" }));
	expect(await ofPartner(store)).toEqual(["cert_000001:true"]);
});
