// s3rver (npm) in a process of its own, so that its CPU and memory are not the test's: stores
// under the directory given, serves one bucket on 127.0.0.1 at a port it picks, prints
// `{"port":N}` once listening, and exits when its parent closes stdin or sends SIGTERM.
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
	address: "127.0.0.1",
	port: 0,
	silent: true,
	directory,
	configureBuckets: [{ name: bucket }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = () => server.close().finally(() => process.exit(0));
process.stdin.on("end", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
