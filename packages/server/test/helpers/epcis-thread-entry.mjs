// The EPCIS thread from its TypeScript sources, for in-process tests of the pool: Node 20 loads
// no .ts in a worker, so tsx compiles it (uncached: tests leave nothing in the temporary
// directory). Start the pool with `execArgv: ["--conditions=dev-source"]` so that workspace
// packages resolve to their sources too, as in vitest.
process.env.TSX_DISABLE_CACHE = "1";
const { register } = await import("tsx/esm/api");
register();
await import("../../src/node/epcis-thread.ts");
