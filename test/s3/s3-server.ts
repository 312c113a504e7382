/**
 * A real S3-compatible server for tests: s3rver (npm) in a child process on 127.0.0.1, behind a
 * small proxy in the test process that
 * - records every request (`requests`), so a test can see what the adapter asked for;
 * - injects faults into the requests a test picks (`fault`): an S3 error, an answer that never
 *   comes, a body cut midway;
 * - answers AbortMultipartUpload, which s3rver lacks (405), the way S3 does: the upload's parts
 *   are removed. `openUploads()` lists the multipart uploads whose parts s3rver still keeps, so
 *   a test can assert that a failed upload left no orphan parts.
 * `stop()` ends both and removes the directory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const CHILD = join(import.meta.dirname, "s3rver-child.mjs");

/** s3rver's built-in credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/**
 * What to do to a request: `error` answers 500 InternalError; `stall` answers nothing, ever;
 * `cut` forwards the answer's headers and `afterBytes` of its body, then drops the connection.
 */
export type Fault = { kind: "error" } | { kind: "stall" } | { kind: "cut"; afterBytes: number };

export interface S3TestServer {
	/** The endpoint for AWS_ENDPOINT_URL_S3 (the proxy). */
	endpoint: string;
	bucket: string;
	/** s3rver's own directory: `<dir>/<bucket>/…` holds the objects. */
	dir: string;
	/** "METHOD /bucket/key?query" of every request so far, with " range=…" when it has a Range. */
	requests: string[];
	/** Answers being sent right now (a reader that stopped early must not keep one open). */
	answersInFlight(): number;
	/** Picks the fault of a request, or none. */
	fault: ((method: string, url: string) => Fault | null) | null;
	/** Multipart uploads whose parts are still stored (neither completed nor aborted). */
	openUploads(): string[];
	/** The object keys stored in the bucket. */
	objectKeys(): string[];
	stop(): Promise<void>;
}

export async function startS3Server(bucket = "as2kit-test"): Promise<S3TestServer> {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-s3rver-"));
	let child: ChildProcess | null = null;
	let proxy: Server | null = null;
	const sockets = new Set<Socket>();
	let answering = 0;
	const stop = async () => {
		if (proxy) {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => proxy!.close(resolve));
		}
		if (child && child.exitCode === null && child.signalCode === null) {
			const exited = new Promise((resolve) => child!.once("exit", resolve));
			child.kill("SIGTERM");
			const timer = setTimeout(() => child!.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
		}
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		child = spawn(process.execPath, [CHILD, dir, bucket], { stdio: ["pipe", "pipe", "inherit"] });
		const upstreamPort = await new Promise<number>((resolve, reject) => {
			const lines = createInterface({ input: child!.stdout! });
			const timer = setTimeout(() => reject(new Error("s3rver did not start within 30 s")), 30_000);
			lines.once("line", (line) => {
				clearTimeout(timer);
				resolve((JSON.parse(line) as { port: number }).port);
			});
			child!.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)));
		});
		const uploadsDir = join(dir, bucket, "._S3rver_uploads");
		const server: S3TestServer = {
			endpoint: "",
			bucket,
			dir,
			requests: [],
			fault: null,
			answersInFlight: () => answering,
			openUploads: () => (existsSync(uploadsDir) ? readdirSync(uploadsDir) : []),
			objectKeys: () => listObjectKeys(join(dir, bucket)),
			stop,
		};
		proxy = createServer((req, res) => {
			const url = req.url ?? "/";
			server.requests.push(`${req.method} ${url}${req.headers.range ? ` range=${req.headers.range}` : ""}`);
			answering++;
			res.once("close", () => answering--);
			const fault = server.fault?.(req.method ?? "", url) ?? null;
			if (fault?.kind === "stall") return void req.resume();
			if (fault?.kind === "error") return answerError(req, res);
			const abortUpload = req.method === "DELETE" ? new URL(url, "http://s3").searchParams.get("uploadId") : null;
			if (abortUpload !== null) return answerAbort(req, res, join(uploadsDir, abortUpload));
			forward(req, res, upstreamPort, fault);
		});
		proxy.on("connection", (socket) => {
			sockets.add(socket);
			socket.once("close", () => sockets.delete(socket));
		});
		await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
		server.endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
		return server;
	} catch (error) {
		await stop();
		throw error;
	}
}

function forward(req: IncomingMessage, res: ServerResponse, port: number, fault: Fault | null): void {
	const upstream = request(
		{ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
		(answer) => {
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			if (fault?.kind !== "cut") return void answer.pipe(res);
			let sent = 0;
			answer.on("data", (chunk: Buffer) => {
				const room = fault.afterBytes - sent;
				if (room > 0) res.write(chunk.subarray(0, room));
				sent += chunk.byteLength;
				if (sent >= fault.afterBytes) {
					answer.destroy();
					res.socket?.destroy();
				}
			});
		},
	);
	upstream.on("error", () => res.socket?.destroy());
	req.pipe(upstream);
}

function answerError(req: IncomingMessage, res: ServerResponse): void {
	req.resume();
	res.writeHead(500, { "content-type": "application/xml" });
	res.end(
		'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected by the test</Message></Error>',
	);
}

function answerAbort(req: IncomingMessage, res: ServerResponse, uploadDir: string): void {
	req.resume();
	if (!existsSync(uploadDir)) {
		res.writeHead(404, { "content-type": "application/xml" });
		return void res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code></Error>');
	}
	rmSync(uploadDir, { recursive: true, force: true });
	res.writeHead(204);
	res.end();
}

/** s3rver keeps an object `a/b` as `a/b._S3rver_object` beside its metadata. */
function listObjectKeys(root: string, prefix = ""): string[] {
	if (!existsSync(root)) return [];
	return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
		if (entry.isDirectory()) return listObjectKeys(join(root, entry.name), `${prefix}${entry.name}/`);
		return entry.name.endsWith("._S3rver_object") ? [`${prefix}${entry.name.slice(0, -"._S3rver_object".length)}`] : [];
	});
}

/**
 * The environment that puts a server's payloads in `s3` under `prefix`: the variables a user
 * sets. s3rver checks the access key id only, so the secret may be any text (a test looks for
 * it in the logs).
 */
export function s3Env(s3: S3TestServer, prefix: string, secret = S3RVER_CREDENTIALS.secretAccessKey) {
	return {
		BLOB_URL: `s3://${s3.bucket}/${prefix}`,
		AWS_ENDPOINT_URL_S3: s3.endpoint,
		AWS_REGION: "us-east-1",
		AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
		AWS_SECRET_ACCESS_KEY: secret,
	};
}
