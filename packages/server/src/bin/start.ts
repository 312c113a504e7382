// `npm start`: the reference server, configured by the environment (decisions.md) and
// `--role api|worker|all`. SIGTERM or SIGINT drains and exits 0 (1 if the drain timed out).
import { configFromEnv } from "../node/config-from-env.ts";
import { startServer } from "../node/create-server.ts";

try {
	const server = await startServer(configFromEnv(process.env, process.argv.slice(2)));
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.error(`as2kit: ${signal} received, draining`);
		const drained = await server.close();
		process.exit(drained ? 0 : 1);
	};
	process.on("SIGTERM", () => void stop("SIGTERM"));
	process.on("SIGINT", () => void stop("SIGINT"));
} catch (error) {
	console.error(`as2kit: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
}
