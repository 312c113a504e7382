import type { Context, Hono } from "hono";
import type { AppEnv } from "./context.ts";

/**
 * The console (packages/console, issue #19) served from the built `@as2kit/console/dist`:
 * hashed assets cached for a year, `config.json` and the page revalidated, every other path
 * under `/console/` answered with index.html so client routes survive a reload. Read from disk
 * on request: runtimes without a file system (workerd) answer 404, as for `/docs/scalar.js`.
 */
export function mountConsole(app: Hono<AppEnv>): void {
	app.use("/console", consoleHeaders);
	app.use("/console/*", consoleHeaders);
	// The page's <base href> is /console/: the bare path redirects there, keeping the query.
	app.get("/console", (c) => c.redirect(`/console/${new URL(c.req.url).search}`, 301));
	app.get("/console/assets/:name", (c) => {
		const name = c.req.param("name");
		if (!ASSET_NAME.test(name)) return c.text("no such console asset\n", 404);
		return serveFile(c, `assets/${name}`, "public, max-age=31536000, immutable");
	});
	app.get("/console/config.json", (c) => serveFile(c, "config.json", "no-cache"));
	app.get("/console/*", (c) => serveFile(c, "index.html", "no-cache"));
}

/**
 * No inline script or style, nothing from another origin except the API the console's
 * config.json names (connect-src 'self' covers the host's own API; a static deployment on
 * another origin sets its own CSP). The page may not be framed.
 */
const CONSOLE_CSP = [
	"default-src 'self'",
	"script-src 'self'",
	"style-src 'self'",
	"img-src 'self' data:",
	"connect-src 'self'",
	"font-src 'self'",
	"object-src 'none'",
	"frame-ancestors 'none'",
	"base-uri 'none'",
	"form-action 'self'",
].join("; ");

async function consoleHeaders(c: Context, next: () => Promise<void>): Promise<void> {
	await next();
	c.res.headers.set("Content-Security-Policy", CONSOLE_CSP);
	c.res.headers.set("X-Content-Type-Options", "nosniff");
	c.res.headers.set("Referrer-Policy", "no-referrer");
	c.res.headers.set("X-Frame-Options", "DENY");
}

/** The file names esbuild writes (`app-ABCD1234.js`): no path separators, no dot-dot. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|svg|png|woff2)$/;

const CONTENT_TYPES: Record<string, string> = {
	html: "text/html; charset=utf-8",
	js: "text/javascript; charset=utf-8",
	css: "text/css; charset=utf-8",
	json: "application/json; charset=utf-8",
	svg: "image/svg+xml",
	png: "image/png",
	woff2: "font/woff2",
};

async function serveFile(c: Context, relative: string, cacheControl: string): Promise<Response> {
	try {
		const [{ createReadStream }, { Readable }, { stat }] = await Promise.all([
			import("node:fs"),
			import("node:stream"),
			import("node:fs/promises"),
		]);
		const file = new URL(`dist/${relative}`, import.meta.resolve("@as2kit/console/package.json"));
		const { size } = await stat(file);
		const body = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
		const extension = relative.slice(relative.lastIndexOf(".") + 1);
		return c.body(body, 200, {
			"Content-Type": CONTENT_TYPES[extension] ?? "application/octet-stream",
			"Content-Length": String(size),
			"Cache-Control": cacheControl,
		});
	} catch {
		return c.text("the console is not available on this runtime (build packages/console)\n", 404);
	}
}
