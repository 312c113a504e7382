/**
 * Builds the console into dist/: one hashed JS bundle and one hashed stylesheet (esbuild,
 * JSX through Preact's automatic runtime), an index.html that links them with NO inline
 * script or style (the host's CSP forbids both), and a default config.json (same-origin API).
 *
 * index.html names its assets by absolute path, so the page works at any client route
 * (`/console/messages/msg_1` gets the same index.html); CONSOLE_BASE (default `/console/`)
 * sets that path for a static deployment elsewhere. The app finds its base from its own URL.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const base = process.env.CONSOLE_BASE ?? "/console/";
if (!/^\/([\w.-]+\/)*$/.test(base)) throw new Error(`CONSOLE_BASE must be a path like /console/, not ${base}`);
const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, "assets"), { recursive: true });

const result = await build({
	entryPoints: { app: join(root, "src/main.tsx") },
	bundle: true,
	format: "esm",
	target: "es2022",
	minify: true,
	sourcemap: false,
	jsx: "automatic",
	jsxImportSource: "preact",
	outdir: join(dist, "assets"),
	entryNames: "[name]-[hash]",
	assetNames: "[name]-[hash]",
	metafile: true,
	legalComments: "none",
	logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((file) => file.slice(file.indexOf("assets/")));
const script = outputs.find((file) => file.endsWith(".js"));
const styles = readFileSync(join(root, "src/styles.css"));
const stylesName = `assets/styles-${createHash("sha256").update(styles).digest("hex").slice(0, 8).toUpperCase()}.css`;
writeFileSync(join(dist, stylesName), styles);

const html = readFileSync(join(root, "src/index.html"), "utf8")
	.replaceAll("%BASE%", base)
	.replace("%SCRIPT%", script)
	.replace("%STYLES%", stylesName);
writeFileSync(join(dist, "index.html"), html);
// Same origin by default; a static deployment on another origin points apiBase at its API.
writeFileSync(join(dist, "config.json"), `${JSON.stringify({ apiBase: "" }, null, 2)}\n`);
