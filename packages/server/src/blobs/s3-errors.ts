import { As2Error, isAs2Error } from "@as2kit/core";

/** What an S3 SDK error says about itself; nothing else of it (request, headers) is kept. */
interface S3ErrorShape {
	name?: string;
	message?: string;
	$metadata?: { httpStatusCode?: number };
}

/** The HTTP status S3 answered with, when it answered at all. */
export function s3Status(error: unknown): number | undefined {
	return (error as S3ErrorShape | null)?.$metadata?.httpStatusCode;
}

export function isS3NotFound(error: unknown): boolean {
	const name = (error as S3ErrorShape | null)?.name;
	return name === "NoSuchKey" || name === "NotFound" || s3Status(error) === 404;
}

/**
 * An S3 failure as our error: 503 SERVICE_UNAVAILABLE, so the client tries again later, and
 * `transient`, so a job that needed the payload (an outbound transmission) is retried on its
 * schedule like an unreachable partner instead of failing the message for good. The operator
 * reads the S3 error code and status in the log line of the failure (the cause). The cause is a new plain error holding only the name, status and
 * message: the SDK's error object also carries the request, which is not logged.
 */
export function toStoreError(error: unknown, action: string): As2Error {
	if (isAs2Error(error)) return error;
	const { name = "Error", message = String(error) } = (error ?? {}) as S3ErrorShape;
	const status = s3Status(error);
	const cause = new Error(`S3 ${name}${status ? ` (HTTP ${status})` : ""}: ${message}`);
	return new As2Error("SERVICE_UNAVAILABLE", `the payload store could not ${action}; try again later`, {
		cause,
		details: { transient: true },
	});
}

/** Runs one S3 call, its failure mapped by {@link toStoreError}. */
export async function s3Call<T>(action: string, call: () => Promise<T>): Promise<T> {
	try {
		return await call();
	} catch (error) {
		throw toStoreError(error, action);
	}
}
