/**
 * The storage conformance suite: every adapter of the port runs it unchanged (after
 * drizzle's `tests()`, unstorage's `testDriver()`, better-auth's `testAdapter()`).
 * Tests are named records `"<area> - <behaviour>"`; a skip must name the test and say why.
 */
import type { As2Store } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, it } from "vitest";
import { accountTests } from "./suites/accounts.ts";
import { apiKeyTests } from "./suites/api-keys.ts";
import { commitWithTests } from "./suites/commit-with.ts";
import { epcisTests } from "./suites/epcis.ts";
import { eventTests } from "./suites/events.ts";
import { idempotencyTests } from "./suites/idempotency.ts";
import { jobTests } from "./suites/jobs.ts";
import { limitTests } from "./suites/limits.ts";
import { messageAttemptTests } from "./suites/message-attempts.ts";
import { messageFilterTests } from "./suites/message-filters.ts";
import { messageStepsTests } from "./suites/message-steps.ts";
import { messageTests } from "./suites/messages.ts";
import { partnerTests } from "./suites/partners.ts";
import { tenantTests } from "./suites/tenants.ts";
import { transactionTests } from "./suites/transactions.ts";
import type { ConformanceTest } from "./suites/types.ts";
import { webhookTests } from "./suites/webhooks.ts";

const SUITES = {
	...accountTests,
	...tenantTests,
	...apiKeyTests,
	...partnerTests,
	...messageTests,
	...messageFilterTests,
	...messageAttemptTests,
	...eventTests,
	...epcisTests,
	...idempotencyTests,
	...limitTests,
	...jobTests,
	...transactionTests,
	...commitWithTests,
	...messageStepsTests,
	...webhookTests,
} satisfies Record<string, ConformanceTest>;

export type ConformanceTestName = keyof typeof SUITES;

export interface ConformanceOptions {
	/** A new, empty store for each test. */
	setup: () => Promise<As2Store>;
	teardown?: (store: As2Store) => Promise<void>;
	/** Tests this adapter cannot pass, each with the reason. */
	skip?: Partial<Record<ConformanceTestName, string>>;
}

export function runStoreConformance(name: string, options: ConformanceOptions): void {
	describe(`storage conformance: ${name}`, () => {
		let store: As2Store;
		beforeEach(async () => {
			store = await options.setup();
		});
		afterEach(async () => {
			await (options.teardown ?? ((s: As2Store) => s.close()))(store);
		});
		for (const [testName, run] of Object.entries(SUITES)) {
			const reason = options.skip?.[testName as ConformanceTestName];
			if (reason) it.skip(`${testName} (skipped: ${reason})`, () => {});
			else it(testName, () => run({ store }));
		}
	});
}
