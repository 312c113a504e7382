/**
 * The raw socket writer of the upload tests (upload-requests.ts). A client that writes a large
 * body in pieces waits for the socket to drain after most pieces: each wait must leave the
 * socket as it found it, or a long upload gathers a listener per piece — CI's
 * "MaxListenersExceededWarning: 11 close listeners added to [Socket]", from the test process.
 */
import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { expect, it } from "vitest";
import { writeDrained } from "./socket-write.ts";

it("leaves no listener behind on a socket after waiting for it to drain, piece after piece", async () => {
	const server = createServer((peer) => peer.resume());
	server.listen(0, "127.0.0.1");
	await once(server, "listening");
	const socket = connect({ host: "127.0.0.1", port: (server.address() as AddressInfo).port });
	try {
		await once(socket, "connect");
		const listeners = (s: Socket) => ({ close: s.listenerCount("close"), drain: s.listenerCount("drain") });
		const before = listeners(socket);
		let waits = 0;
		const write = socket.write.bind(socket);
		socket.write = ((...args: Parameters<Socket["write"]>) => {
			const accepted = write(...args);
			if (!accepted) waits++;
			return accepted;
		}) as Socket["write"];
		// 4 MiB is more than a fresh loopback connection's buffers take at once.
		const piece = new Uint8Array(4 * 1024 * 1024);
		for (let i = 0; i < 16; i++) await writeDrained(socket, piece);
		expect(waits, "the writer waited for the socket to drain").toBeGreaterThan(0);
		expect(listeners(socket)).toEqual(before);
	} finally {
		socket.destroy();
		server.close();
		await once(server, "close");
	}
});
