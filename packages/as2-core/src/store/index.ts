/**
 * @module @as2kit/core/store — the storage port: types (and the few helpers every adapter
 * shares: an id formatter, a token bucket, the transaction check), so adapters and the engine
 * agree without depending on each other.
 */
export type * from "./attempt-store.ts";
export type { BlobInfo, BlobStore } from "./blob-store.ts";
export { commitWith } from "./commit-with.ts";
export type * from "./epcis-store.ts";
export { formatId } from "./format-id.ts";
export type {
	ClaimedJob,
	ClaimOptions,
	JobKindDepth,
	JobLease,
	JobRecord,
	JobStore,
	KeyedJobOutcome,
	NewJob,
	ScheduleStore,
} from "./jobs.ts";
export {
	type BucketOptions,
	type RateLimitStore,
	STORAGE_PERIOD,
	type TakeResult,
	takeFromBucket,
	type UsageStore,
} from "./limits.ts";
export type * from "./message-records.ts";
export type * from "./message-steps.ts";
export type * from "./message-store.ts";
export type { Page, PageRequest } from "./pagination.ts";
export type * from "./partner-records.ts";
export type * from "./partner-store.ts";
export type * from "./records.ts";
export { messageSteps } from "./steps-by-calls.ts";
export type * from "./store.ts";
export { together } from "./together.ts";
export { checkTransactionsByDefault, type TransactionChecks, transactionChecks } from "./transaction-checks.ts";
export type * from "./webhooks.ts";
