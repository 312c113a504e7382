import type { As2Store, BlobStore } from "@as2kit/core/store";
import { createAccountService } from "./accounts.ts";
import { createApiKeyService } from "./api-keys.ts";
import { createAuthService } from "./auth.ts";
import { createAuthenticator } from "./authenticate.ts";
import { createCertificateService } from "./certificates/certificates.ts";
import { DEFAULT_CONFIG, type ServiceConfig } from "./config.ts";
import { createVersionedCache } from "./config-cache/versioned-cache.ts";
import { watchConfigWrites } from "./config-cache/watch-config-writes.ts";
import { createCredentialCache } from "./credential-cache.ts";
import { type Logger, type ServiceDeps, SILENT_LOGGER } from "./deps.ts";
import { createInThreadEpcisEngine, type EpcisEngine } from "./epcis/epcis-engine.ts";
import { createEpcisService } from "./epcis/index.ts";
import { createIdempotency } from "./idempotency.ts";
import { createAttemptReads } from "./messages/attempts-reads.ts";
import { createMessagePipeline } from "./messages/index.ts";
import { createMessageReads } from "./messages/message-reads.ts";
import { createMasterPartnerService } from "./partners/master-partners.ts";
import { createPartnerChecks } from "./partners/partner-tests.ts";
import { createPartnerService } from "./partners/partners.ts";
import { createRateLimiter } from "./rate-limits.ts";
import { deriveKey } from "./secrets/tokens.ts";
import { NO_TELEMETRY, type Telemetry } from "./telemetry.ts";
import { createTenantService } from "./tenants.ts";
import { createWebhookService } from "./webhooks/endpoints.ts";

export interface ServiceOptions {
	store: As2Store;
	blobs: BlobStore;
	config: Partial<ServiceConfig> & Pick<ServiceConfig, "masterKey">;
	now?: () => Date;
	logger?: Logger;
	/** Default: on the calling thread; the Node entry passes its thread pool (node/epcis-thread-pool.ts). */
	epcisEngine?: EpcisEngine;
	/** Default: none; the Node entry passes its Prometheus metrics (http/service-metrics.ts). */
	telemetry?: Telemetry;
	/** Default: a new key for each tenant identity; test apps pass pre-generated ones (ServiceDeps). */
	identityKeyPair?: () => Promise<CryptoKeyPair>;
}

/**
 * The as2kit engine, framework-free: every operation of the REST surface as a function of a
 * principal and plain input. The Hono host (`createApp`) is one way to call it; embedders may
 * call it directly.
 *
 * @example
 * const service = createService({ store, blobs, config: { masterKey } });
 * const { token } = await service.auth.register({ name: "Acme", email, password });
 */
export function createService(options: ServiceOptions) {
	const config: ServiceConfig = { ...DEFAULT_CONFIG, ...options.config };
	const configCache = createVersionedCache();
	const deps: ServiceDeps = {
		store: watchConfigWrites(options.store, configCache),
		blobs: options.blobs,
		config,
		now: options.now ?? (() => new Date()),
		logger: options.logger ?? SILENT_LOGGER,
		tokenKey: deriveKey(config.masterKey, "bearer token hash"),
		sealKey: deriveKey(config.masterKey, "sealed secrets"),
		wake: () => {},
		reserveWorker: () => null,
		credentials: createCredentialCache(),
		configCache,
		epcisEngine: options.epcisEngine ?? createInThreadEpcisEngine(),
		telemetry: options.telemetry ?? NO_TELEMETRY,
		...(options.identityKeyPair && { identityKeyPair: options.identityKeyPair }),
	};
	const messages = createMessagePipeline(deps);
	const messageReads = createMessageReads(deps);
	return {
		deps,
		authenticate: createAuthenticator(deps),
		admit: createRateLimiter(deps),
		beginIdempotent: createIdempotency(deps),
		auth: createAuthService(deps),
		apiKeys: createApiKeyService(deps),
		accounts: createAccountService(deps),
		tenants: createTenantService(deps),
		partners: createPartnerService(deps),
		masterPartners: createMasterPartnerService(deps),
		partnerChecks: createPartnerChecks(deps, messages.keys),
		certificates: createCertificateService(deps),
		messages,
		webhooks: createWebhookService(deps),
		messageReads,
		messageAttempts: createAttemptReads(deps, messageReads),
		epcis: createEpcisService(deps),
	};
}

export type Service = ReturnType<typeof createService>;
