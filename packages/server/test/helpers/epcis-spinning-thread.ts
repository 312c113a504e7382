/**
 * An EPCIS thread that serves tasks as the real one does, except that a chunk beginning with
 * `spin` makes it spin forever inside its task's slice of work: a step of work that never
 * ends, which only the pool's watchdog can stop.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ThreadSlot, type ToThread } from "../../src/node/epcis-thread-protocol.ts";
import { serveEpcisTasks } from "../../src/node/epcis-thread-tasks.ts";

const port = parentPort!;
const slot = new ThreadSlot((workerData as { slot: SharedArrayBuffer }).slot);
port.on("message", (message: ToThread) => {
	if (message.type !== "chunk" || new TextDecoder().decode(message.bytes.subarray(0, 4)) !== "spin") return;
	slot.begin(message.id, 0);
	for (;;) {}
});
serveEpcisTasks(port, slot);
