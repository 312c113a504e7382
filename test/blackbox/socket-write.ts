import type { Socket } from "node:net";

/**
 * Writes `bytes`; resolves once the socket drained, closed, or `stop` settled. The listener of
 * whichever did not happen is removed: an upload of many pieces waits here after most of them,
 * on one socket.
 */
export async function writeDrained(socket: Socket, bytes: Uint8Array, stop?: Promise<void>): Promise<void> {
	if (socket.write(bytes)) return;
	let done = () => {};
	try {
		await Promise.race([
			new Promise<void>((resolve) => {
				done = resolve;
				socket.once("drain", done);
				socket.once("close", done);
			}),
			...(stop ? [stop] : []),
		]);
	} finally {
		socket.off("drain", done);
		socket.off("close", done);
	}
}
