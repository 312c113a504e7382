/**
 * Whether the packages' dist/ folders were built from the sources as they are now, so that
 * `npm test` builds only when something changed (`npm install` has just built them; the build
 * takes a minute of a 2-core machine).
 *
 *     node scripts/build-inputs.mjs clear   before a build: no dist/ is stamped while it runs
 *     node scripts/build-inputs.mjs stamp   after a build: the inputs' hash into each dist/
 *     node scripts/build-inputs.mjs check   exit 0 when every dist/ holds the current hash
 *
 * A second argument names another repository root (the script's test runs it on a fixture).
 *
 * The inputs are every file of every package that builds, dist/ and node_modules/ aside (its
 * tests too: an edit there rebuilds, which errs on the safe side), the root's package.json,
 * package-lock.json and tsconfig.base.json, the Node version and CONSOLE_BASE (the console's
 * build reads it). By content, not by modification time: a checkout or a copy changes times
 * and not bytes. A build that failed or was interrupted leaves no stamp: `npm run build` clears
 * them first (tsup's clean keeps dotfiles) and stamps after the whole build succeeded.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const [command, root] = process.argv.slice(2);
const ROOT = resolve(root ?? join(import.meta.dirname, ".."));
const STAMP = ".inputs-hash";
/** Folders that are outputs or scratch, never inputs (.gitignore's). */
const SKIPPED = new Set(["node_modules", "dist", "coverage", "data", ".tmp", ".scratch", "test-results"]);
const ROOT_FILES = ["package.json", "package-lock.json", "tsconfig.base.json"];

/** The folders of the workspace packages that have a build script. */
function builtPackages() {
	const dir = join(ROOT, "packages");
	return readdirSync(dir, { withFileTypes: true })
		.filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "package.json")))
		.map((entry) => join(dir, entry.name))
		.filter((pkg) => JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).scripts?.build)
		.sort();
}

function* filesUnder(dir) {
	const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
	for (const entry of entries) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			if (!SKIPPED.has(entry.name)) yield* filesUnder(path);
		} else if (entry.isFile()) {
			yield path;
		}
	}
}

function inputsHash(packages) {
	const hash = createHash("sha256");
	hash.update(`node ${process.version}\0CONSOLE_BASE ${process.env.CONSOLE_BASE ?? ""}\0`);
	const files = [...ROOT_FILES.map((name) => join(ROOT, name)), ...packages.flatMap((pkg) => [...filesUnder(pkg)])];
	for (const file of files) {
		if (!existsSync(file)) continue;
		const bytes = readFileSync(file);
		hash.update(`${relative(ROOT, file)}\0${bytes.length}\0`);
		hash.update(bytes);
	}
	return hash.digest("hex");
}

const packages = builtPackages();
if (command === "clear") {
	for (const pkg of packages) rmSync(join(pkg, "dist", STAMP), { force: true });
} else if (command === "stamp") {
	const current = inputsHash(packages);
	for (const pkg of packages) writeFileSync(join(pkg, "dist", STAMP), `${current}\n`);
} else if (command === "check") {
	const current = inputsHash(packages);
	const stale = packages.filter((pkg) => {
		const stamp = join(pkg, "dist", STAMP);
		return !existsSync(stamp) || readFileSync(stamp, "utf8").trim() !== current;
	});
	if (stale.length > 0) {
		console.log(`build: inputs changed since the last build (${stale.map((pkg) => relative(ROOT, pkg)).join(", ")})`);
		process.exit(1);
	}
	console.log("build: dist/ is up to date with the sources, not built again");
} else {
	console.error("usage: node scripts/build-inputs.mjs clear|stamp|check");
	process.exit(2);
}
