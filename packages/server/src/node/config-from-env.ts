import { resolve } from "node:path";
import * as v from "valibot";
import { type S3Settings, s3SettingsFromEnv } from "../blobs/s3-settings.ts";
import { PLAN_NAMES } from "../service/plans.ts";

const flagWithDefault = (fallback: "0" | "1") =>
	v.optional(
		v.pipe(
			v.picklist(["0", "1", "true", "false", ""]),
			v.transform((s) => s === "1" || s === "true"),
		),
		fallback,
	);
const flag = flagWithDefault("0");
const flagOn = flagWithDefault("1");
const port = (fallback: string) =>
	v.optional(
		v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(65535)),
		fallback,
	);
const optionalText = v.optional(
	v.pipe(
		v.string(),
		v.transform((s) => (s === "" ? null : s)),
	),
	"",
);
/**
 * A place (an address, a path, a URL), `fallback` when unset. Set but empty (`HOST=` in a compose
 * file or an EnvironmentFile) it is refused: Node would listen on every interface for an empty
 * host, and an empty path is the working directory.
 */
const place = (fallback: string) =>
	v.optional(v.pipe(v.string(), v.nonEmpty(`must not be empty: unset it for the default, ${fallback}`)), fallback);
/**
 * The deployment's public base URL: async MDN receipts are `<it>/as2/receive` (send.ts), so an
 * http(s) URL with no credentials, query or fragment, which a partner can POST to.
 */
const publicUrl = v.optional(
	v.pipe(
		v.string(),
		v.transform((s) => (s === "" ? null : s)),
		v.check(
			(s) => s === null || isBaseUrl(s),
			"must be the http(s):// base URL partners reach, without credentials, query or fragment",
		),
	),
	"",
);

function isBaseUrl(text: string): boolean {
	if (!/^https?:\/\//i.test(text)) return false;
	try {
		const url = new URL(text);
		return !url.username && !url.password && !url.search && !url.hash && !text.includes("?") && !text.includes("#");
	} catch {
		return false;
	}
}

const seconds = (fallback: string) => v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)), fallback);
const secondsList = (fallback: string) =>
	v.optional(
		v.pipe(
			v.string(),
			v.regex(/^\d+(,\d+)*$/, "must be comma-separated whole seconds"),
			v.transform((s) => s.split(",").map(Number)),
		),
		fallback,
	);

/** A whole number of at least `min`. */
const count = (min: number) => v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.integer(), v.minValue(min));
const decimal = v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/), v.transform(Number));

/** The environment variables of decisions.md (Running the reference server), checked. */
const envSchema = v.object({
	PORT: port("8080"),
	HOST: place("127.0.0.1"),
	AS2_PORT: v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))),
	DATABASE_URL: place("./data/as2.sqlite"),
	/** PostgreSQL connections an instance keeps at most (README, "Running several instances"). */
	DATABASE_POOL_SIZE: v.optional(count(1), "10"),
	BLOB_DIR: place("./data/blobs"),
	AS2_DATA_DIR: place("./data"),
	AS2_ALLOW_HTTP: flag,
	AS2_ALLOW_PRIVATE_TARGETS: flag,
	AS2_DEFAULT_PLAN: v.optional(v.picklist(PLAN_NAMES), "free"),
	AS2_WEBHOOK_RETRY_DELAYS: secondsList("0,15,900,3600,21600,86400"),
	AS2_SEND_RETRY_DELAYS: secondsList("0,60,300,900,3600"),
	AS2_MDN_TIMEOUT_SECONDS: seconds("86400"),
	AS2_HTTP_TIMEOUT_SECONDS: seconds("120"),
	AS2_WIRE_CAPTURE: flagOn,
	AS2_REGISTRATION_CODE: optionalText,
	AS2_MASTER_KEY: optionalText,
	AS2_PUBLIC_URL: publicUrl,
	AS2_METRICS_TOKEN: optionalText,
	AS2_TRUST_PROXY: flag,
	/** Exact origins allowed to call the API from a browser (a console on another origin); none by default. */
	AS2_CORS_ORIGINS: v.optional(
		v.pipe(
			v.string(),
			v.transform((s) =>
				s
					.split(",")
					.map((origin) => origin.trim())
					.filter(Boolean),
			),
			v.check(
				(origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin)),
				"must be comma-separated origins such as https://console.example.com (scheme and host, no path)",
			),
		),
		"",
	),
	AS2_SHUTDOWN_TIMEOUT_SECONDS: seconds("30"),
	AS2_LINGER_SECONDS: seconds("30"),
	// A lease of no time is lost at once, and a worker of no slots claims nothing (`--role api` runs none).
	AS2_JOB_LEASE_SECONDS: v.optional(count(1), "60"),
	AS2_WORKER_CONCURRENCY: v.optional(count(1), "16"),
	AS2_RECEIVE_BURST: seconds("2000"),
	AS2_RECEIVE_PER_SECOND: v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/), v.transform(Number)), "500"),
	AS2_RECEIVE_CONCURRENCY: v.optional(
		v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.integer(), v.minValue(1)),
		"64",
	),
	/** Worker threads of EPCIS validation and indexing; 0 runs them on the event loop (node/epcis-thread-pool.ts). */
	AS2_EPCIS_THREADS: v.optional(count(0)),
	AS2_EPCIS_QUEUE: v.optional(count(0)),
	AS2_EPCIS_BUDGET_SECONDS: v.optional(v.pipe(decimal, v.minValue(0.001)), "10"),
	AS2_EPCIS_BUDGET_SECONDS_PER_MB: v.optional(decimal, "2"),
	AS2_EPCIS_THREAD_MEMORY_MB: v.optional(count(64), "1024"),
	TLS_CERT_FILE: optionalText,
	TLS_KEY_FILE: optionalText,
	/**
	 * Test suites only: a cheaper scrypt cost (log2 N, 10 to 14) for the passwords this server
	 * hashes, instead of the production 15 (~120 ms of CPU per hash; ~3.5 ms at 10). Refused
	 * with AS2_PUBLIC_URL or TLS_CERT_FILE set (a server partners reach), logged at start.
	 */
	AS2_TEST_PASSWORD_COST_LOG2: v.optional(
		v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.integer(), v.minValue(10), v.maxValue(14)),
	),
	/**
	 * The storage adapters refuse the root store inside a transaction (their `checkTransactions`):
	 * for tests and debugging.
	 */
	AS2_CHECK_TRANSACTIONS: flag,
	LOG_LEVEL: v.optional(v.picklist(["trace", "debug", "info", "warn", "error", "fatal", "silent"]), "info"),
});

export type EnvConfig = v.InferOutput<typeof envSchema> & {
	role: "all" | "api" | "worker";
	/** `BLOB_URL=s3://…` with the AWS variables; when set, payloads go there instead of BLOB_DIR. */
	BLOB_URL: S3Settings | null;
};

/**
 * Reads the configuration from the environment and the `--role api|worker|all` argument;
 * throws a readable error naming each bad variable.
 */
export function configFromEnv(env: NodeJS.ProcessEnv, argv: readonly string[] = []): EnvConfig {
	const result = v.safeParse(envSchema, env);
	if (!result.success) {
		const problems = result.issues.map(
			(issue) => `${issue.path?.map((p) => String(p.key)).join(".")}: ${issue.message}`,
		);
		throw new Error(`invalid configuration:\n  ${problems.join("\n  ")}`);
	}
	const roleIndex = argv.indexOf("--role");
	const role = roleIndex >= 0 ? argv[roleIndex + 1] : (argv.find((a) => a.startsWith("--role="))?.slice(7) ?? "all");
	if (role !== "all" && role !== "api" && role !== "worker")
		throw new Error(`--role must be api, worker or all, not ${role}`);
	if (!!result.output.TLS_CERT_FILE !== !!result.output.TLS_KEY_FILE) {
		throw new Error("TLS_CERT_FILE and TLS_KEY_FILE go together");
	}
	if (
		result.output.AS2_TEST_PASSWORD_COST_LOG2 !== undefined &&
		(result.output.AS2_PUBLIC_URL || result.output.TLS_CERT_FILE)
	) {
		throw new Error(
			"AS2_TEST_PASSWORD_COST_LOG2 is for test suites only: it cannot be set with AS2_PUBLIC_URL or TLS_CERT_FILE",
		);
	}
	let blobUrl: S3Settings | null;
	try {
		blobUrl = s3SettingsFromEnv(env);
	} catch (error) {
		throw new Error(`invalid configuration:\n  ${(error as Error).message}`);
	}
	return {
		...result.output,
		BLOB_URL: blobUrl,
		AS2_DATA_DIR: resolve(result.output.AS2_DATA_DIR),
		BLOB_DIR: resolve(result.output.BLOB_DIR),
		role,
	};
}
