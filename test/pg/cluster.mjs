/**
 * A throwaway PostgreSQL cluster for the tests (issue #8): `initdb` and `pg_ctl` from the
 * machine's PostgreSQL, listening on 127.0.0.1 at a free port, removed afterwards.
 * PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres`
 * user (or a user made for it). Plain JavaScript, so that the benchmarks (`npm run bench`) use it
 * too; cluster.d.mts gives the tests its types.
 */
// @ts-check
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** @returns {string | null} the directory of initdb and pg_ctl, or null when PostgreSQL is not installed */
export function findPostgresBin() {
	const onPath = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).stdout.trim();
	if (onPath) return join(onPath, "..");
	const root = "/usr/lib/postgresql";
	if (!existsSync(root)) return null;
	const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
	for (const version of versions)
		if (existsSync(join(root, version, "bin", "initdb"))) return join(root, version, "bin");
	return null;
}

/**
 * @param {string} bin the directory of initdb and pg_ctl
 * @returns {Promise<{ url: string, dataDir: string, stop(): void }>} `url`: the superuser's maintenance database
 */
export async function startCluster(bin) {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-pg-"));
	const data = join(dir, "data");
	const port = await freePort();
	const asUser = process.getuid?.() === 0 ? clusterUser() : null;
	if (asUser) {
		chownSync(dir, asUser.uid, asUser.gid);
		chmodSync(dir, 0o700);
	}
	/** @param {string} command @param {string[]} args */
	const run = (command, args) => {
		const [file, argv] = asUser
			? ["runuser", ["-u", asUser.name, "--", join(bin, command), ...args]]
			: [join(bin, command), args];
		execFileSync(file, argv, { stdio: ["ignore", "ignore", "pipe"], cwd: dir });
	};
	run("initdb", ["-D", data, "-U", "as2kit", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
	// Durability is not what these tests are about: no fsync makes each test database cheap.
	const options = [
		`-p ${port}`,
		"-c listen_addresses=127.0.0.1",
		`-c unix_socket_directories=${dir}`,
		"-c max_connections=300",
		"-c fsync=off",
		"-c synchronous_commit=off",
		"-c full_page_writes=off",
	].join(" ");
	run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
	const watchdog = stopWhenGone(process.pid, asUser ? `runuser -u ${asUser.name} -- ` : "", join(bin, "pg_ctl"), dir);
	let stopped = false;
	return {
		url: `postgres://as2kit@127.0.0.1:${port}/postgres`,
		dataDir: data,
		stop() {
			if (stopped) return;
			stopped = true;
			watchdog.kill();
			try {
				run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
}

/**
 * A detached shell that stops the cluster and removes its directory once the process that
 * started it has gone without calling stop() (a test run killed by a timeout or a signal):
 * otherwise such a cluster runs on, orphaned, until the machine restarts.
 * @param {number} owner @param {string} prefix @param {string} pgCtl @param {string} dir
 */
function stopWhenGone(owner, prefix, pgCtl, dir) {
	const script = `while kill -0 ${owner} 2>/dev/null; do sleep 2; done; ${prefix}'${pgCtl}' -D '${dir}/data' -m immediate -w -t 30 stop; rm -rf '${dir}'`;
	const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
	child.unref();
	return child;
}

/** @returns {{ name: string, uid: number, gid: number }} */
function clusterUser() {
	for (const name of ["postgres", "as2kit-pg"]) {
		const id = spawnSync("id", ["-u", name], { encoding: "utf8" });
		if (id.status === 0) {
			const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
			return { name, uid: Number(id.stdout.trim()), gid };
		}
	}
	execFileSync("useradd", ["--system", "--no-create-home", "as2kit-pg"]);
	return clusterUser();
}

/** @returns {Promise<number>} */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}
