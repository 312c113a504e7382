import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { at, T0 } from "./fixtures.ts";
import { certificate, partner } from "./partner-fixtures.ts";
import type { ConformanceTest } from "./types.ts";

const page = { page: 1, perPage: 50 };
const ids = (rows: { partner: { id: string } }[]) => rows.map((r) => r.partner.id);

export const partnerTests = {
	"partners - a tenant sees its own partners and the account's masters, nothing else": async ({ store }) => {
		await store.partners.create(
			partner("prt_000001", { connectionStatus: { lastTest: at(5), lastTestResult: "success", responseTimeMs: 12 } }),
		);
		await store.partners.create(partner("prt_000002", { tenantId: "tnt_000002" }));
		await store.partners.create(partner("prt_master_000001", { tenantId: null }));
		await store.partners.create(partner("prt_master_000002", { tenantId: null, accountId: "acc_000002" }));
		expect(await store.partners.getForTenant("tnt_000001", "prt_000001")).toEqual(
			partner("prt_000001", { connectionStatus: { lastTest: at(5), lastTestResult: "success", responseTimeMs: 12 } }),
		);
		expect(await store.partners.getForTenant("tnt_000001", "prt_000002")).toBeNull();
		expect(await store.partners.getForTenant("tnt_000001", "prt_master_000001")).toBeNull();
		expect((await store.partners.getMaster("acc_000001", "prt_master_000001"))?.id).toBe("prt_master_000001");
		expect(await store.partners.getMaster("acc_000001", "prt_master_000002")).toBeNull();
		expect(await store.partners.getMaster("acc_000001", "prt_000001")).toBeNull();
		expect((await store.partners.findVisible("tnt_000001", "acc_000001", "prt_master_000001"))?.override).toBeNull();
		expect(await store.partners.findVisible("tnt_000001", "acc_000001", "prt_000002")).toBeNull();
		expect(await store.partners.findVisible("tnt_000001", "acc_000001", "prt_master_000002")).toBeNull();
		expect(ids((await store.partners.list("tnt_000001", "acc_000001", {}, page)).items)).toEqual([
			"prt_000001",
			"prt_master_000001",
		]);
		expect(await store.partners.countForAccount("acc_000001")).toBe(3);
	},
	"partners - list filters by type, effective name, AS2 id and effective active": async ({ store }) => {
		await store.partners.create(partner("prt_000001", { name: "Acme Supply", createdAt: at(1) }));
		await store.partners.create(partner("prt_000002", { name: "Globex", active: false, createdAt: at(2) }));
		await store.partners.create(partner("prt_master_000001", { tenantId: null, name: "Hub", createdAt: at(3) }));
		await store.partners.putOverride({
			tenantId: "tnt_000001",
			masterPartnerId: "prt_master_000001",
			name: "Hub (ACME view)",
			active: false,
			settings: { name: "Hub (ACME view)" },
			createdAt: T0,
			updatedAt: T0,
		});
		const list = (filter: object) =>
			store.partners.list("tnt_000001", "acc_000001", filter, page).then((p) => ids(p.items));
		expect(await list({ type: "tenant" })).toEqual(["prt_000001", "prt_000002"]);
		expect(await list({ type: "inherited" })).toEqual(["prt_master_000001"]);
		expect(await list({ search: "acme" })).toEqual(["prt_000001", "prt_master_000001"]);
		expect(await list({ search: "PRT_000002" })).toEqual(["prt_000002"]);
		expect(await list({ search: "100%_" })).toEqual([]);
		expect(await list({ active: true })).toEqual(["prt_000001"]);
		expect(await list({ active: false })).toEqual(["prt_000002", "prt_master_000001"]);
		// Another tenant sees the master without the override.
		const other = await store.partners.list("tnt_000002", "acc_000001", { active: true }, page);
		expect(ids(other.items)).toEqual(["prt_master_000001"]);
		expect(other.items[0]?.override).toBeNull();
		const paged = await store.partners.list("tnt_000001", "acc_000001", {}, { page: 2, perPage: 2 });
		expect([paged.total, ids(paged.items)]).toEqual([3, ["prt_master_000001"]]);
	},
	"partners - AS2 id unique among a tenant's live partners and an account's masters": async ({ store }) => {
		await store.partners.create(partner("prt_000001", { as2Id: "ACME" }));
		await expectConflict(store.partners.create(partner("prt_000002", { as2Id: "ACME" })));
		await store.partners.create(partner("prt_000003", { as2Id: "ACME", tenantId: "tnt_000002" }));
		await store.partners.create(partner("prt_master_000001", { as2Id: "ACME", tenantId: null }));
		await expectConflict(store.partners.create(partner("prt_master_000002", { as2Id: "ACME", tenantId: null })));
		expect(await store.partners.softDelete("prt_000001", at(1))).toBe(true);
		expect(await store.partners.softDelete("prt_000001", at(2))).toBe(false);
		await store.partners.create(partner("prt_000004", { as2Id: "ACME" }));
		expect(await store.partners.getForTenant("tnt_000001", "prt_000001")).toBeNull();
		expect((await store.partners.findVisibleByAs2Id("tnt_000001", "acc_000001", "ACME"))?.partner.id).toBe(
			"prt_000004",
		);
		await store.partners.softDelete("prt_000004", at(3));
		expect((await store.partners.findVisibleByAs2Id("tnt_000001", "acc_000001", "ACME"))?.partner.id).toBe(
			"prt_master_000001",
		);
		expect(await store.partners.findVisibleByAs2Id("tnt_000001", "acc_000001", "acme")).toBeNull();
	},
	"partners - update changes the given fields; overrides put, read and delete": async ({ store }) => {
		await store.partners.create(partner("prt_master_000001", { tenantId: null }));
		const updated = await store.partners.update("prt_master_000001", {
			url: "https://new.example/as2",
			connectionStatus: { lastTest: at(9), lastTestResult: "failure", responseTimeMs: null },
			updatedAt: at(9),
		});
		expect(updated).toMatchObject({
			url: "https://new.example/as2",
			name: "Partner prt_master_000001",
			updatedAt: at(9),
		});
		expect(updated?.connectionStatus?.lastTest).toEqual(at(9));
		const override = {
			tenantId: "tnt_000001",
			masterPartnerId: "prt_master_000001",
			name: null,
			active: null,
			settings: { url: "https://tenant.example/as2", connection: { timeout_seconds: 30 } },
			createdAt: T0,
			updatedAt: T0,
		};
		await store.partners.putOverride(override);
		await store.partners.putOverride({ ...override, settings: { url: "https://x.example" }, updatedAt: at(1) });
		expect(await store.partners.getOverride("tnt_000001", "prt_master_000001")).toEqual({
			...override,
			settings: { url: "https://x.example" },
			updatedAt: at(1),
		});
		const seen = await store.partners.findVisible("tnt_000001", "acc_000001", "prt_master_000001");
		expect(seen?.override?.settings).toEqual({ url: "https://x.example" });
		expect(await store.partners.deleteOverride("tnt_000001", "prt_master_000001")).toBe(true);
		expect(await store.partners.deleteOverride("tnt_000001", "prt_master_000001")).toBe(false);
		expect(await store.partners.getOverride("tnt_000001", "prt_master_000001")).toBeNull();
	},
	// Issue #20: the reads every message makes are plain SQL in the adapters; they must return
	// every column as the rest of the port writes and reads it (dates, JSON, booleans, nulls).
	"partners, certificates - the per-message reads return whole records, the override's columns apart": async ({
		store,
	}) => {
		const status = { lastTest: at(5), lastTestResult: "success" as const, responseTimeMs: 12 };
		await store.partners.create(partner("prt_000001", { as2Id: "OWN", connectionStatus: status }));
		await store.partners.create(partner("prt_master_000001", { tenantId: null, as2Id: "HUB", createdAt: at(2) }));
		const override = {
			tenantId: "tnt_000001",
			masterPartnerId: "prt_master_000001",
			name: "Hub (ACME view)",
			active: false,
			settings: { url: "https://tenant.example/as2", connection: { timeout_seconds: 30 } },
			createdAt: at(3),
			updatedAt: at(4),
		};
		await store.partners.putOverride(override);
		const own = { partner: partner("prt_000001", { as2Id: "OWN", connectionStatus: status }), override: null };
		const master = {
			partner: partner("prt_master_000001", { tenantId: null, as2Id: "HUB", createdAt: at(2) }),
			override,
		};
		expect(await store.partners.findVisible("tnt_000001", "acc_000001", "prt_000001")).toEqual(own);
		expect(await store.partners.findVisible("tnt_000001", "acc_000001", "prt_master_000001")).toEqual(master);
		expect(await store.partners.findVisibleByAs2Id("tnt_000001", "acc_000001", "HUB")).toEqual(master);
		expect(await store.partners.findVisibleByAs2Id("tnt_000002", "acc_000001", "HUB")).toEqual({
			...master,
			override: null,
		});
		const full = certificate("cert_000001", {
			chainPem: "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n",
			privateKeySealed: "sealed",
			expiringNotifiedAt: at(6),
		});
		const identity = certificate("cert_000002", { type: "identity", partnerId: null, usage: "signing" });
		await store.certificates.create(full);
		await store.certificates.create(identity);
		expect(await store.certificates.listFor({ partnerId: "prt_000001" })).toEqual([full]);
		expect(await store.certificates.listFor({ identityOf: "tnt_000001" })).toEqual([identity]);
	},
	"certificates - scoped by account, listed with filters, masters on request": async ({ store }) => {
		await store.certificates.create(certificate("cert_000001", { createdAt: at(1) }));
		await store.certificates.create(
			certificate("cert_000002", { createdAt: at(2), type: "identity", partnerId: null, origin: "generated" }),
		);
		await store.certificates.create(
			certificate("cert_000003", { createdAt: at(3), tenantId: null, partnerId: "prt_master_000001" }),
		);
		await store.certificates.create(
			certificate("cert_000004", { createdAt: at(4), tenantId: "tnt_000002", active: false }),
		);
		await store.certificates.create(
			certificate("cert_000005", { createdAt: at(5), accountId: "acc_000002", tenantId: null }),
		);
		expect(await store.certificates.get("acc_000001", "cert_000001")).toEqual(
			certificate("cert_000001", { createdAt: at(1) }),
		);
		expect(await store.certificates.get("acc_000002", "cert_000001")).toBeNull();
		const list = (filter: object) =>
			store.certificates.list({ tenantId: "tnt_000001", ...filter }, page).then((p) => p.items.map((c) => c.id));
		expect(await list({})).toEqual(["cert_000002", "cert_000001"]);
		expect(await list({ includeMaster: { accountId: "acc_000001" } })).toEqual([
			"cert_000003",
			"cert_000002",
			"cert_000001",
		]);
		expect(await list({ type: "identity" })).toEqual(["cert_000002"]);
		expect(await list({ partnerId: "prt_000001" })).toEqual(["cert_000001"]);
		expect(await list({ active: false })).toEqual([]);
		expect(await store.certificates.countUploaded("acc_000001")).toBe(3);
		expect((await store.certificates.listFor({ identityOf: "tnt_000001" })).map((c) => c.id)).toEqual(["cert_000002"]);
	},
	"certificates - newest first per owner; deactivated with their partner; soft-deleted": async ({ store }) => {
		await store.certificates.create(certificate("cert_000001", { notBefore: at(1) }));
		await store.certificates.create(certificate("cert_000002", { notBefore: at(2) }));
		await store.certificates.create(certificate("cert_000003", { partnerId: "prt_000002" }));
		expect((await store.certificates.listFor({ partnerId: "prt_000001" })).map((c) => c.id)).toEqual([
			"cert_000002",
			"cert_000001",
		]);
		expect(await store.certificates.deactivateForPartner("prt_000001", at(5))).toBe(2);
		expect((await store.certificates.get("acc_000001", "cert_000001"))?.active).toBe(false);
		expect((await store.certificates.get("acc_000001", "cert_000003"))?.active).toBe(true);
		const activated = await store.certificates.update("cert_000001", {
			active: true,
			activatedAt: at(6),
			updatedAt: at(6),
		});
		expect(activated).toMatchObject({ active: true, activatedAt: at(6) });
		expect(await store.certificates.softDelete("cert_000001", at(7))).toBe(true);
		expect(await store.certificates.get("acc_000001", "cert_000001")).toBeNull();
		expect(await store.certificates.update("cert_000001", { name: "x", updatedAt: at(8) })).toBeNull();
	},
	"certificates - expiry notifications are claimed exactly once": async ({ store }) => {
		await store.certificates.create(certificate("cert_000001", { expiresAt: at(100) }));
		await store.certificates.create(certificate("cert_000002", { expiresAt: at(1000) }));
		expect((await store.certificates.listUnnotified("expiring", at(500), 10)).map((c) => c.id)).toEqual([
			"cert_000001",
		]);
		const claims = await Promise.all(
			Array.from({ length: 5 }, () => store.certificates.markNotified("cert_000001", "expiring", at(1))),
		);
		expect(claims.filter(Boolean)).toHaveLength(1);
		expect(await store.certificates.listUnnotified("expiring", at(500), 10)).toEqual([]);
		expect((await store.certificates.listUnnotified("expired", at(500), 10)).map((c) => c.id)).toEqual(["cert_000001"]);
	},
	"certificates - soonest expiry per owner: active and not deleted only, master partners apart": async ({ store }) => {
		await store.certificates.create(certificate("cert_000001", { expiresAt: at(500) }));
		await store.certificates.create(certificate("cert_000002", { expiresAt: at(300), partnerId: "prt_000002" }));
		await store.certificates.create(certificate("cert_000003", { expiresAt: at(100), active: false }));
		await store.certificates.create(certificate("cert_000004", { expiresAt: at(200) }));
		await store.certificates.softDelete("cert_000004", at(1));
		await store.certificates.create(
			certificate("cert_000005", { expiresAt: at(400), type: "identity", partnerId: null, origin: "generated" }),
		);
		await store.certificates.create(
			certificate("cert_000006", { expiresAt: at(700), tenantId: null, partnerId: "prt_master_000001" }),
		);
		await store.certificates.create(certificate("cert_000007", { expiresAt: at(900), tenantId: "tnt_000002" }));
		await store.certificates.create(
			certificate("cert_000008", { expiresAt: at(50), accountId: "acc_000002", tenantId: "tnt_000003", active: false }),
		);
		const expiries = await store.certificates.soonestExpiries();
		const owner = (e: { accountId: string; tenantId: string | null }) => `${e.accountId}/${e.tenantId}`;
		expect([...expiries].sort((a, b) => owner(a).localeCompare(owner(b)))).toEqual([
			{ accountId: "acc_000001", tenantId: null, expiresAt: at(700) },
			{ accountId: "acc_000001", tenantId: "tnt_000001", expiresAt: at(300) },
			{ accountId: "acc_000001", tenantId: "tnt_000002", expiresAt: at(900) },
		]);
	},
} satisfies Record<string, ConformanceTest>;
