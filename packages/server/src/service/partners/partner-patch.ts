import type { EncryptAlgorithm, MdnMode, PartnerRecord, PartnerSettings, SignAlgorithm } from "@as2kit/core/store";
import { applyCompatibility, type CompatibilityPatch } from "./compatibility-profiles.ts";

/**
 * A change to a partner, already validated: the spec's flat fields plus the nested
 * configuration groups. The same shape is stored as a tenant's override of a master partner
 * (the HTTP password sealed), so one function applies both.
 */
export interface PartnerPatch {
	name?: string;
	as2Id?: string;
	url?: string;
	sign?: boolean;
	encrypt?: boolean;
	compress?: boolean;
	mdnMode?: MdnMode;
	signAlgorithm?: SignAlgorithm | null;
	encryptAlgorithm?: EncryptAlgorithm | null;
	active?: boolean;
	deactivatedAt?: Date | null;
	settings?: SettingsPatch;
}

export interface SettingsPatch {
	mdn?: Partial<PartnerSettings["mdn"]>;
	connection?: Partial<PartnerSettings["connection"]>;
	/** null removes the credentials. */
	auth?: PartnerSettings["auth"];
	headers?: Record<string, string>;
	tls?: Partial<PartnerSettings["tls"]>;
	compatibility?: CompatibilityPatch;
	inbound?: Partial<PartnerSettings["inbound"]>;
}

/** What a partner gets when nothing is said (interface spec defaults; decisions.md retries). */
export function defaultSettings(sendRetryDelays: readonly number[]): PartnerSettings {
	return {
		mdn: { url: null, signed: true, algorithm: null },
		connection: {
			timeoutSeconds: 120,
			retryAttempts: Math.max(0, sendRetryDelays.length - 1),
			retryIntervalSeconds: null,
		},
		auth: null,
		headers: {},
		tls: { caPem: null, pinnedSha256: null },
		compatibility: { profile: null },
		inbound: { requireSigned: null, requireEncrypted: null },
	};
}

/** The partner with `patch` applied: supplied fields change, the rest stays. */
export function applyPatch(partner: PartnerRecord, patch: PartnerPatch): PartnerRecord {
	const { settings, ...flat } = patch;
	return { ...partner, ...defined(flat), settings: applySettings(partner.settings, settings) };
}

export function applySettings(settings: PartnerSettings, patch: SettingsPatch | undefined): PartnerSettings {
	if (!patch) return settings;
	return {
		mdn: { ...settings.mdn, ...defined(patch.mdn ?? {}) },
		connection: { ...settings.connection, ...defined(patch.connection ?? {}) },
		auth: patch.auth === undefined ? settings.auth : patch.auth,
		headers: patch.headers === undefined ? settings.headers : patch.headers,
		tls: { ...settings.tls, ...defined(patch.tls ?? {}) },
		compatibility: patch.compatibility
			? applyCompatibility(settings.compatibility, patch.compatibility)
			: settings.compatibility,
		inbound: { ...settings.inbound, ...defined(patch.inbound ?? {}) },
	};
}

/** Two patches as one: `later` wins field by field (a tenant's successive overrides). */
export function mergePatches(earlier: PartnerPatch, later: PartnerPatch): PartnerPatch {
	const { settings: a, ...flatA } = earlier;
	const { settings: b, ...flatB } = later;
	const settings: SettingsPatch = { ...a };
	for (const [group, value] of Object.entries(b ?? {}) as [keyof SettingsPatch, unknown][]) {
		const before = settings[group];
		const mergeable =
			value &&
			typeof value === "object" &&
			before &&
			typeof before === "object" &&
			group !== "headers" &&
			group !== "auth";
		(settings as Record<string, unknown>)[group] = mergeable ? { ...before, ...defined(value) } : value;
	}
	const merged: PartnerPatch = { ...flatA, ...defined(flatB) };
	if (Object.keys(settings).length > 0) merged.settings = settings;
	return merged;
}

function defined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
