import type { MessageRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { AttemptOutcome } from "../telemetry.ts";

/**
 * One transmission attempt's outcome, counted (telemetry.ts) and logged as one line an
 * on-call person can search by message or partner (README, Metrics and logs). Identifiers,
 * codes and timings only: never payload bytes, the partner's answer or credentials.
 */
export function reportAttempt(
	{ telemetry, logger }: Pick<ServiceDeps, "telemetry" | "logger">,
	message: MessageRecord,
	attempt: { outcome: AttemptOutcome; errorCode: string | null; httpStatus: number | null; durationMs: number },
): void {
	telemetry.transmissionAttempt(attempt);
	const line = {
		messageId: message.id,
		partnerId: message.partnerId,
		attempt: message.attempts,
		outcome: attempt.outcome,
		errorCode: attempt.errorCode,
		httpStatus: attempt.httpStatus,
		durationMs: attempt.durationMs,
	};
	if (attempt.outcome === "sent") logger.info(line, "transmission attempt");
	else logger.warn(line, "transmission attempt");
}
