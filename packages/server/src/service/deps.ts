import type { As2Store, BlobStore } from "@as2kit/core/store";
import type { ServiceConfig } from "./config.ts";
import type { VersionedCache } from "./config-cache/versioned-cache.ts";
import type { CredentialCache } from "./credential-cache.ts";
import type { EpcisEngine } from "./epcis/epcis-engine.ts";
import type { WorkerSlot } from "./jobs/worker.ts";
import type { Telemetry } from "./telemetry.ts";

/** A structured logger (pino's shape); the engine never prints. */
export interface Logger {
	debug(object: object, message?: string): void;
	info(object: object, message?: string): void;
	warn(object: object, message?: string): void;
	error(object: object, message?: string): void;
	child(bindings: object): Logger;
}

/** Everything the engine talks to, injected so that tests and embedders choose. */
export interface ServiceDeps {
	store: As2Store;
	blobs: BlobStore;
	config: ServiceConfig;
	/** The clock; tests inject a controllable one. */
	now: () => Date;
	logger: Logger;
	/** Derived once from the master key: the HMAC key of API keys and session tokens. */
	tokenKey: Uint8Array;
	/** Derived once from the master key: the AES-256-GCM key of sealed secrets (secrets/sealed.ts). */
	sealKey: Uint8Array;
	/** New jobs were committed: wakes this process's worker (a no-op until one runs). */
	wake: () => void;
	/** A slot of this process's worker for a job about to be written leased to it (jobs/hand-off.ts); null until one runs. */
	reserveWorker: (kind: string) => WorkerSlot | null;
	/** Where EPCIS documents are validated and read (epcis/epcis-engine.ts). */
	epcisEngine: EpcisEngine;
	/** API keys authenticated lately (credential-cache.ts); whatever changes a key or an account invalidates it. */
	credentials: CredentialCache;
	/**
	 * The message path's configuration reads, remembered (config-cache/config-reads.ts); `store`
	 * invalidates it on every configuration change (config-cache/watch-config-writes.ts).
	 */
	configCache: VersionedCache;
	/** Where operator metrics go (telemetry.ts); a no-op unless the host collects them. */
	telemetry: Telemetry;
	/**
	 * The RSA-2048 key pair of a new tenant identity; unset (always, but in test apps), a new
	 * one each time. Test apps hand out pre-generated keys (test/helpers/identity-keys.ts).
	 */
	identityKeyPair?: () => Promise<CryptoKeyPair>;
}

export const SILENT_LOGGER: Logger = {
	debug() {},
	info() {},
	warn() {},
	error() {},
	child() {
		return SILENT_LOGGER;
	},
};
