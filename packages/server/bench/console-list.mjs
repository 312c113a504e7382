// Issue #19 benchmark: the console's Messages screen for a tenant with 1,000,000 messages —
// from navigating to /console/messages (a full page load: HTML, script, /auth/me, the first
// GET /v1/messages) until the first page's rows are on screen, in Debian's headless Chromium
// against the built server (target ≤ 1 s). `node packages/server/bench/run.mjs console-list`.
//
// The database comes from the messages-list benchmark (same generator, same 1 M rows); with
// BENCH_LIST_DB set it is kept and reused between runs, as there. Figures: each load's time,
// cold (first load of a fresh browser context: nothing cached) and warm (the same tab again),
// the median of BENCH_CONSOLE_LOADS (default 7) with min–max as the machine's noise.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { freePort, REPO, summary } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_LIST_MESSAGES ?? 1_000_000);
const LOADS = Number(process.env.BENCH_CONSOLE_LOADS ?? 7);
const TARGET_MS = 1000;
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
if (!CHROMIUM) throw new Error("Debian's chromium is not installed (apt-get install chromium)");

const workDir = mkdtempSync(join(tmpdir(), "as2kit-bench-console-"));
const dbFile = process.env.BENCH_LIST_DB ?? join(workDir, "messages.sqlite");
let server = null;
let browser = null;
try {
	if (!existsSync(`${dbFile}.bench.json`)) generate();
	const meta = JSON.parse(readFileSync(`${dbFile}.bench.json`, "utf8"));
	console.log(`console-list: ${meta.messages.toLocaleString("en")} messages of one tenant; ${cpus().length} cores`);
	server = await startServer();
	browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
	const cold = [];
	const warm = [];
	for (let i = 0; i < LOADS; i++) {
		const context = await browser.newContext();
		const page = await context.newPage();
		await signIn(page, server.base);
		cold.push(await loadMessages(page, server.base));
		warm.push(await loadMessages(page, server.base));
		await context.close();
	}
	for (const [name, values] of [
		["cold", cold],
		["warm", warm],
	]) {
		const s = summary(values);
		console.log(
			`  ${name}: first page shown in ${s.median.toFixed(0)} ms median (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}, noise ${s.noisePct.toFixed(0)}%), target ≤ ${TARGET_MS} ms: ${s.median <= TARGET_MS ? "met" : "NOT met"}`,
		);
	}
	console.log(
		`  load average ${loadavg()
			.map((l) => l.toFixed(2))
			.join(" ")}`,
	);
} finally {
	await browser?.close();
	await server?.stop();
	rmSync(workDir, { recursive: true, force: true });
}

/** The messages-list benchmark's generator, run once with one quick measuring round. */
function generate() {
	const run = spawnSync(process.execPath, [join(REPO, "packages/server/bench/messages-list.mjs")], {
		env: { ...process.env, BENCH_LIST_DB: dbFile, BENCH_LIST_MESSAGES: String(MESSAGES), BENCH_LIST_RUNS: "1" },
		stdio: "inherit",
	});
	if (run.status !== 0) throw new Error("generating the messages failed");
}

/** The built server on the generated database (its master key is the generator's). */
async function startServer() {
	const port = await freePort();
	const child = spawn(process.execPath, [join(REPO, "packages/server/dist/bin/start.js")], {
		env: {
			PATH: process.env.PATH ?? "",
			PORT: String(port),
			HOST: "127.0.0.1",
			DATABASE_URL: dbFile,
			BLOB_DIR: join(workDir, "blobs"),
			AS2_DATA_DIR: workDir,
			AS2_MASTER_KEY: "03".repeat(32),
			AS2_DEFAULT_PLAN: "enterprise",
			LOG_LEVEL: "error",
		},
		stdio: ["ignore", "ignore", "inherit"],
	});
	const base = `http://127.0.0.1:${port}`;
	for (let i = 0; i < 600; i++) {
		const up = await fetch(`${base}/health`).catch(() => null);
		if (up?.status === 200) break;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return {
		base,
		async stop() {
			const exited = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGTERM");
			await exited;
		},
	};
}

/** Signs in through the console's form, as a user does: the generator's user. */
async function signIn(page, base) {
	await page.goto(`${base}/console/`, { waitUntil: "domcontentloaded" });
	await page.getByLabel("Email").fill("bench@example.com");
	await page.getByLabel("Password").fill("bench password 1");
	await page.getByRole("button", { name: "Sign in" }).click();
	await page.getByRole("heading", { level: 1 }).waitFor({ timeout: 30_000 });
}

/** Milliseconds from navigating to the Messages screen until its first row is visible. */
async function loadMessages(page, base) {
	const started = performance.now();
	await page.goto(`${base}/console/messages`, { waitUntil: "commit" });
	await page
		.locator("table tbody tr")
		.first()
		.waitFor({ state: "visible", timeout: 30_000 })
		.catch(async (error) => {
			throw new Error(`no rows: ${(await page.locator("main").textContent())?.slice(0, 500)}`, { cause: error });
		});
	return performance.now() - started;
}
