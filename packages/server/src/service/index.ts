/**
 * @module @as2kit/server/service — the engine without the HTTP layer, for embedders.
 */
export type { ServiceConfig } from "./config.ts";
export { createService, type Service, type ServiceOptions } from "./create-service.ts";
export type { Logger, ServiceDeps } from "./deps.ts";
export { PLANS, type Plan, planOf } from "./plans.ts";
export type { Principal } from "./principal.ts";
