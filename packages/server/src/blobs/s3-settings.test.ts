import { describe, expect, it } from "vitest";
import { configFromEnv } from "../node/config-from-env.ts";
import { s3SettingsFromEnv } from "./s3-settings.ts";

describe("BLOB_URL and the AWS variables", () => {
	it("is null without BLOB_URL: payloads stay in BLOB_DIR", () => {
		expect(s3SettingsFromEnv({})).toBeNull();
		expect(s3SettingsFromEnv({ BLOB_URL: "" })).toBeNull();
		expect(configFromEnv({}).BLOB_URL).toBeNull();
	});

	it("reads bucket and prefix, the region, and the keys when given", () => {
		expect(
			s3SettingsFromEnv({
				BLOB_URL: "s3://as2-payloads/prod/eu/",
				AWS_REGION: "eu-central-1",
				AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
				AWS_SECRET_ACCESS_KEY: "secret",
				AWS_SESSION_TOKEN: "token",
			}),
		).toEqual({
			bucket: "as2-payloads",
			prefix: "prod/eu/",
			region: "eu-central-1",
			endpoint: null,
			credentials: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token" },
		});
	});

	it("leaves credentials to the SDK's chain (profile, instance or task role) when no keys are set", () => {
		expect(s3SettingsFromEnv({ BLOB_URL: "s3://bucket", AWS_REGION: "us-east-1" })).toMatchObject({
			prefix: "",
			credentials: null,
		});
	});

	it("takes AWS_ENDPOINT_URL_S3 for MinIO, R2 or Ceph, with us-east-1 when no region is given", () => {
		expect(
			s3SettingsFromEnv({ BLOB_URL: "s3://bucket/p", AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9000" }),
		).toMatchObject({ endpoint: "http://127.0.0.1:9000", region: "us-east-1", prefix: "p/" });
	});

	for (const [env, message] of [
		[{ BLOB_URL: "https://bucket.s3.amazonaws.com/x" }, /BLOB_URL must be s3:\/\/bucket/],
		[{ BLOB_URL: "s3://Bad_Bucket/x", AWS_REGION: "us-east-1" }, /valid S3 bucket name/],
		[{ BLOB_URL: "s3://bucket" }, /needs AWS_REGION/],
		[{ BLOB_URL: "s3://bucket", AWS_ENDPOINT_URL_S3: "127.0.0.1:9000" }, /AWS_ENDPOINT_URL_S3 must be/],
		[{ BLOB_URL: "s3://bucket", AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "AKIA" }, /go together/],
	] as const) {
		it(`refuses ${JSON.stringify(env)} with a readable start error`, () => {
			expect(() => configFromEnv(env)).toThrow(/invalid configuration/);
			expect(() => configFromEnv(env)).toThrow(message);
		});
	}
});
