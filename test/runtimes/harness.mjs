// Runs test/runtimes/roundtrip-suite.mjs on each JavaScript runtime, from the binaries the npm
// registry ships: Bun, Deno and workerd in root optionalDependencies, Node 22 and 24 in
// node-versions/ (node-versions.mjs); Node 20 is the project's own. Shared by
// test/runtimes/runtimes.test.ts and packages/as2-core/bench/runtimes.mjs.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installNodeVersions, NODE_VERSIONS, nodeVersionBinary } from "./node-versions.mjs";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

/** workerd refuses a compatibility date later than its own build; this one predates the pinned workerd. */
const WORKERD_COMPATIBILITY_DATE = "2026-11-01";

export const RUNTIMES = ["node", ...NODE_VERSIONS, "bun", "deno", "workerd"];

/** The runtime's version, as its binary reports it. */
export function runtimeVersion(runtime) {
	const output = execFileSync(executable(runtime), ["--version"], { encoding: "utf8" });
	return /\d+\.\d+\.\d+|\d{4}-\d{2}-\d{2}/.exec(output)?.[0] ?? output.trim();
}

/** The runtime's binary; only the one asked for is looked up, so a runtime not installed fails alone. */
function executable(runtime) {
	if (runtime === "node") return process.execPath;
	if (NODE_VERSIONS.includes(runtime)) return nodeVersionBinary(runtime);
	if (runtime === "bun") return join(packageDir("@oven/bun-linux-x64"), "bin", "bun");
	if (runtime === "deno") return join(packageDir("@deno/linux-x64-glibc"), "deno");
	return join(packageDir("@cloudflare/workerd-linux-64"), "bin", "workerd");
}

/**
 * Installs what `runtime` needs before its first run (Node 22/24 come on first use:
 * node-versions.mjs). Resolves null when it is ready. When it cannot be installed (a developer
 * offline), resolves with the reason, for the caller to show; under CI that rejects instead.
 */
export async function prepareRuntime(runtime, install = installNodeVersions) {
	if (!NODE_VERSIONS.includes(runtime)) return null;
	try {
		await install();
		return null;
	} catch (error) {
		if (process.env.CI) throw error;
		console.warn(`${runtime} does not run here: ${error.message}`);
		return error.message;
	}
}

/** Two RSA-2048 identities made with the OpenSSL CLI, as PEM text. */
export function makeKeys(dir) {
	const keys = {};
	for (const name of ["alice", "bob"]) {
		const key = join(dir, `${name}.key`);
		const cert = join(dir, `${name}.crt`);
		execFileSync(
			"openssl",
			[
				"req",
				"-x509",
				"-newkey",
				"rsa:2048",
				"-nodes",
				"-keyout",
				key,
				"-out",
				cert,
				"-subj",
				`/CN=${name}`,
				"-days",
				"30",
			],
			{ stdio: "ignore" },
		);
		keys[name] = { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
	}
	return keys;
}

/**
 * Runs the suite (`mode: "suite"`) or the small-message bench (`mode: "bench"`) on `runtime`
 * in a child process killed after `timeoutMs`; `dir` is a scratch directory the caller removes.
 * Resolves with the JSON the runtime printed, plus the child's `peakRssBytes` (VmHWM, sampled
 * from /proc: a worker cannot read it, nor Deno without --allow-all).
 */
export async function runOnRuntime(runtime, { dir, mode, input, timeoutMs }) {
	const inputPath = join(dir, `input-${runtime}-${mode}.json`);
	writeFileSync(inputPath, JSON.stringify(input));
	if (runtime === "workerd") return runOnWorkerd({ dir, mode, inputPath, timeoutMs });
	const entry = join(here, "run-suite.mjs");
	const permissions = runtime === "deno" ? ["run", "--allow-read", "--allow-env"] : [];
	const { stdout, peakRssBytes } = await runBounded(
		executable(runtime),
		[...permissions, entry, inputPath, mode],
		timeoutMs,
		dir,
	);
	return { ...lastJsonLine(stdout), peakRssBytes };
}

/** workerd (nodejs_compat) runs the suite as a worker's `test()` handler, bundled by esbuild. */
async function runOnWorkerd({ dir, mode, inputPath, timeoutMs }) {
	const { buildSync } = await import("esbuild");
	const wrapper = join(dir, `worker-${mode}.mjs`);
	writeFileSync(
		wrapper,
		`import { benchSmall, runSuite } from ${JSON.stringify(join(here, "roundtrip-suite.mjs"))};
export default {
	async test(controller, env) {
		const input = JSON.parse(env.INPUT);
		const result = ${mode === "bench" ? "await benchSmall(input)" : "await runSuite(input)"};
		console.log(JSON.stringify(result));
	},
};
`,
	);
	// The built core imports `crypto`, `stream` and `zlib` (tsup drops the node: prefix); workerd
	// provides them as built-ins, so every Node built-in stays an import.
	buildSync({
		entryPoints: [wrapper],
		bundle: true,
		format: "esm",
		platform: "neutral",
		mainFields: ["module", "main"],
		external: ["node:*", ...builtinModules],
		outfile: join(dir, `bundle-${mode}.mjs`),
		logLevel: "error",
	});
	const config = join(dir, `workerd-${mode}.capnp`);
	writeFileSync(
		config,
		`using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "bundle-${mode}.mjs") ],
  compatibilityDate = "${WORKERD_COMPATIBILITY_DATE}",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [ (name = "INPUT", text = embed ${JSON.stringify(basename(inputPath))}) ],
);
`,
	);
	const { stdout, peakRssBytes } = await runBounded(executable("workerd"), ["test", config], timeoutMs, dir);
	return { ...lastJsonLine(stdout), peakRssBytes };
}

/** Runs a command, killing it after `timeoutMs`; samples its peak RSS (VmHWM) every 50 ms. */
function runBounded(command, args, timeoutMs, cwd) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		let peakRssBytes;
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		const sample = () => {
			try {
				const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
				if (match) peakRssBytes = Math.max(peakRssBytes ?? 0, Number(match[1]) * 1024);
			} catch {
				// the process has just exited
			}
		};
		const sampler = setInterval(sample, 50);
		const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
		child.on("error", (error) => {
			clearInterval(sampler);
			clearTimeout(timer);
			reject(error);
		});
		child.on("close", (code, signal) => {
			clearInterval(sampler);
			clearTimeout(timer);
			if (code === 0) resolve({ stdout, peakRssBytes });
			else reject(new Error(`${command} ${args.join(" ")} ended with ${signal ?? code}:\n${stderr.slice(-4000)}`));
		});
	});
}

function lastJsonLine(stdout) {
	const line = stdout
		.trim()
		.split("\n")
		.findLast((l) => l.startsWith("{"));
	if (!line) throw new Error(`no JSON result in the output:\n${stdout.slice(-2000)}`);
	return JSON.parse(line);
}

/**
 * The runtime packages ship linux-x64 (glibc) binaries only; they are optionalDependencies so
 * that `npm install` on another platform skips them instead of failing (and Node 22/24 are
 * installed on linux-x64 only). There, only the project's Node runs the suite; under CI every
 * runtime must be installed, or the run fails.
 */
export const RUNTIME_BINARIES_HERE = (process.platform === "linux" && process.arch === "x64") || !!process.env.CI;
