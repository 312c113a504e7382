// Issue #18 benchmark: large.mjs (a 1 GB payload through POST /v1/messages, signed, encrypted
// and sent to another instance with a signed sync MDN) with both instances' payloads in S3
// (BLOB_URL) instead of BLOB_DIR: s3rver on 127.0.0.1, in a process of its own. Both servers
// inherit this process's environment, so the S3 variables set here reach them. Peak RSS of
// each server (target ≤ 200 MB) and the wall time.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO } from "./lib.mjs";

const BUCKET = "as2kit-bench";
const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-s3rver-"));
const s3rver = spawn(process.execPath, [join(REPO, "test/s3/s3rver-child.mjs"), dir, BUCKET], {
	stdio: ["pipe", "pipe", "inherit"],
});
const stop = () => {
	s3rver.kill("SIGTERM");
	rmSync(dir, { recursive: true, force: true });
};
const { port } = JSON.parse(
	await new Promise((resolve) => createInterface({ input: s3rver.stdout }).once("line", resolve)),
);

Object.assign(process.env, {
	BLOB_URL: `s3://${BUCKET}/bench`,
	AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
	AWS_REGION: "us-east-1",
	AWS_ACCESS_KEY_ID: "S3RVER",
	AWS_SECRET_ACCESS_KEY: "S3RVER",
	AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
});
process.env.BENCH_RUNS ??= "1";
console.log("(5b on S3) payloads in S3 (s3rver on loopback) instead of BLOB_DIR:");
try {
	await import("./large.mjs");
} finally {
	stop();
}
