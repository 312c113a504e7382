import type { PartnerRecord } from "@as2kit/core/store";

/**
 * When to try a send again (decisions.md: AS2_SEND_RETRY_DELAYS, default 0,60,300,900,3600;
 * partner connection settings): `attempts` tries so far; null when none is left. A partner's
 * own retry interval replaces the schedule's spacing; its retry count caps the tries.
 */
export function nextAttemptDelaySeconds(
	attempts: number,
	partner: PartnerRecord,
	schedule: readonly number[],
): number | null {
	const { retryAttempts, retryIntervalSeconds } = partner.settings.connection;
	if (attempts > retryAttempts) return null;
	return retryIntervalSeconds ?? schedule[attempts] ?? schedule.at(-1) ?? 60;
}
