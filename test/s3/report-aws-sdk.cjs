// Preloaded (`NODE_OPTIONS=--require …`) into a server under test: at exit, writes to stderr
// whether the AWS SDK was ever loaded. ESM imports of the SDK (a CommonJS package) go through
// require's cache, so its presence there says so.
process.on("exit", () => {
	const loaded = Object.keys(require.cache).some((path) => path.includes("/@aws-sdk/client-s3/"));
	process.stderr.write(`\naws-sdk-loaded=${loaded}\n`);
});
