import type { Logger } from "../service/deps.ts";
import { createInThreadEpcisEngine, type EpcisEngine } from "../service/epcis/epcis-engine.ts";
import type { EnvConfig } from "./config-from-env.ts";
import { createEpcisThreadPool } from "./epcis-thread-pool.ts";

/**
 * The EPCIS engine of the reference server: the thread pool, or the event loop with
 * AS2_EPCIS_THREADS=0. Run from the TypeScript sources (in-process tests), a thread could
 * not load its entry, so the event loop does the work there too.
 */
export function startEpcisEngine(config: EnvConfig, logger: Logger): EpcisEngine {
	if (config.AS2_EPCIS_THREADS === 0 || import.meta.url.endsWith(".ts")) return createInThreadEpcisEngine();
	return createEpcisThreadPool({
		...(config.AS2_EPCIS_THREADS !== undefined ? { threads: config.AS2_EPCIS_THREADS } : {}),
		...(config.AS2_EPCIS_QUEUE !== undefined ? { queue: config.AS2_EPCIS_QUEUE } : {}),
		budget: {
			baseMs: config.AS2_EPCIS_BUDGET_SECONDS * 1000,
			msPerMb: config.AS2_EPCIS_BUDGET_SECONDS_PER_MB * 1000,
		},
		threadMemoryMb: config.AS2_EPCIS_THREAD_MEMORY_MB,
		logger,
	});
}
