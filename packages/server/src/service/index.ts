/**
 * @module @as2kit/server/service — the engine without the HTTP layer, for embedders.
 */
export type { ServiceConfig } from "./config.ts";
export { createService, type Service, type ServiceOptions } from "./create-service.ts";
export type { Logger, ServiceDeps } from "./deps.ts";
export { createInThreadEpcisEngine, type EpcisEngine, type EventRecordContext } from "./epcis/epcis-engine.ts";
export { type NewEvent, recordEvent } from "./events.ts";
export { PLANS, type Plan, planOf } from "./plans.ts";
export type { Principal } from "./principal.ts";
export { type AttemptOutcome, type InboundRefusal, NO_TELEMETRY, type Telemetry } from "./telemetry.ts";
export { queuedView } from "./views/message-views.ts";
export type { DeliveryDispatcher } from "./webhooks/dispatcher.ts";
export { EVENT_KINDS, type EventKind, type EventKindSpec } from "./webhooks/event-kinds.ts";
