/**
 * Where the S3 blob store is and how to reach it, from `BLOB_URL=s3://bucket/prefix` and the
 * standard AWS variables. Parsed without the AWS SDK, which is loaded only when this is set.
 */
export interface S3Settings {
	bucket: string;
	/** "" or a key prefix ending in "/". */
	prefix: string;
	region: string;
	/** `AWS_ENDPOINT_URL_S3`: a MinIO, R2 or Ceph endpoint, addressed path-style. */
	endpoint: string | null;
	/** From the environment; null leaves the SDK's default chain (profile, instance or task role). */
	credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

// S3 bucket naming rules: 3 to 63 lowercase letters, digits, dots and hyphens.
const BLOB_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/** The S3 settings, or null when `BLOB_URL` is unset (payloads stay in `BLOB_DIR`). */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings | null {
	const url = env.BLOB_URL?.trim();
	if (!url) return null;
	const match = BLOB_URL.exec(url);
	if (!match) throw new Error("BLOB_URL must be s3://bucket or s3://bucket/prefix (a valid S3 bucket name)");
	const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
	const endpoint = env.AWS_ENDPOINT_URL_S3?.trim() || null;
	if (endpoint !== null && !/^https?:\/\/[^/]/.test(endpoint)) {
		throw new Error("AWS_ENDPOINT_URL_S3 must be an http:// or https:// URL");
	}
	const region = env.AWS_REGION?.trim() || (endpoint ? "us-east-1" : "");
	if (!region)
		throw new Error("BLOB_URL on AWS needs AWS_REGION (or AWS_ENDPOINT_URL_S3 for another S3-compatible store)");
	const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
	const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
	if (!!accessKeyId !== !!secretAccessKey) throw new Error("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together");
	const sessionToken = env.AWS_SESSION_TOKEN?.trim();
	return {
		bucket: match[1]!,
		prefix: prefix ? `${prefix}/` : "",
		region,
		endpoint,
		credentials:
			accessKeyId && secretAccessKey
				? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
				: null,
	};
}
