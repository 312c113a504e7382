// As epcis-thread-entry.mjs, for the thread of epcis-spinning-thread.ts.
process.env.TSX_DISABLE_CACHE = "1";
const { register } = await import("tsx/esm/api");
register();
await import("./epcis-spinning-thread.ts");
