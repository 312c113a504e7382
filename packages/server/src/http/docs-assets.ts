import type { Context } from "hono";

/**
 * The API reference page's script, from the pinned `@scalar/api-reference` package
 * (packages/server/package.json) instead of a CDN, so `/docs` works without internet
 * (issue #18 §1). Read from disk on request: runtimes without a file system (workerd) answer
 * 404 and the page stays blank there, as it would offline.
 */
export const DOCS_SCRIPT = "docs/scalar.js";

export async function serveDocsScript(c: Context): Promise<Response> {
	try {
		const [{ createReadStream }, { Readable }, { stat }] = await Promise.all([
			import("node:fs"),
			import("node:stream"),
			import("node:fs/promises"),
		]);
		// The package exports its ESM entry; the standalone browser bundle sits beside it.
		const file = new URL("browser/standalone.js", import.meta.resolve("@scalar/api-reference/style.css"));
		const { size } = await stat(file);
		const body = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
		return c.body(body, 200, {
			"Content-Type": "text/javascript; charset=utf-8",
			"Content-Length": String(size),
			"Cache-Control": "public, max-age=3600",
		});
	} catch {
		return c.text("the API reference script is not available on this runtime\n", 404);
	}
}
