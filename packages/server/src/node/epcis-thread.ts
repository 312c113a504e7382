// The entry of an EPCIS worker thread (epcis-thread-pool.ts starts it; tsup builds it as
// dist/epcis-thread.js, next to the chunk that holds the pool).
import { parentPort, workerData } from "node:worker_threads";
import { ThreadSlot } from "./epcis-thread-protocol.ts";
import { serveEpcisTasks } from "./epcis-thread-tasks.ts";

if (!parentPort) throw new Error("epcis-thread.ts runs as a worker thread of the EPCIS pool");
serveEpcisTasks(parentPort, new ThreadSlot((workerData as { slot: SharedArrayBuffer }).slot));
