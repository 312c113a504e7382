#!/usr/bin/env node
// The `as2kit` bin. npm links a workspace's bins before the root `postinstall` builds dist/,
// and skips a bin whose file is missing then: so the bin is this committed file, which loads
// the built command line when it runs.
const entry = new URL("../dist/cli/main.js", import.meta.url);
try {
	await import(entry.href);
} catch (error) {
	if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes(entry.pathname)) throw error;
	console.error("as2kit: the command line is not built yet; run `npm run build` first");
	process.exitCode = 3;
}
