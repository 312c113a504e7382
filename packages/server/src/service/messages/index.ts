import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import { createEpcisIndexHandler, EPCIS_INDEX_JOB } from "../epcis/index-job.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { PURGE_WIRE, purgeWireHandler } from "./attempts-retention.ts";
import { createInboundConcurrency } from "./inbound-concurrency.ts";
import { createKeyMaterial } from "./key-material.ts";
import { MDN_TIMEOUT_SCAN, mdnTimeoutHandler } from "./mdn-timeout.ts";
import { createMessageActions } from "./message-actions.ts";
import { createReceiver } from "./receive.ts";
import { createReceiveHandler } from "./receive-job.ts";
import { createSendHandler } from "./send.ts";
import { RECEIVE_JOB, SEND_JOB, SEND_MDN_JOB, SIMULATED_MDN_JOB } from "./send-job-kind.ts";
import { createSendMdnHandler } from "./send-mdn.ts";
import { deliverSimulatedMdn } from "./simulate.ts";
import { createSubmit } from "./submit.ts";

/** The message pipeline: submission, inbound receipt, and the jobs between them. */
export function createMessagePipeline(deps: ServiceDeps) {
	const keys = createKeyMaterial(configReads(deps.configCache, deps.store), deps.sealKey);
	const inbound = createInboundConcurrency(deps.config.receiveConcurrency);
	const handlers: Record<string, JobHandler> = {
		[SEND_JOB]: createSendHandler(deps, keys),
		[RECEIVE_JOB]: createReceiveHandler(deps, keys, inbound),
		[SEND_MDN_JOB]: createSendMdnHandler(deps, keys),
		[SIMULATED_MDN_JOB]: (job) => deliverSimulatedMdn(deps, String(job.payload.messageId)),
		[MDN_TIMEOUT_SCAN.name]: mdnTimeoutHandler(deps),
		[PURGE_WIRE.name]: purgeWireHandler(deps),
		[EPCIS_INDEX_JOB]: createEpcisIndexHandler(deps),
	};
	const submit = createSubmit(deps, keys);
	return {
		keys,
		submit,
		actions: createMessageActions(deps, submit),
		receive: createReceiver(deps, keys, inbound),
		/** This instance's bound of inbound work (inbound-concurrency.ts). */
		inbound,
		handlers,
		tasks: [MDN_TIMEOUT_SCAN, PURGE_WIRE],
		/** A send job starts from its message: claimed with it, it makes no read of its own (issue #20). */
		withMessage: [SEND_JOB],
	};
}
