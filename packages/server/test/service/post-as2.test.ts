import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { postAs2 } from "../../src/service/transport/post-as2.ts";

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
	await close?.();
	close = null;
});

it("streams a large body with backpressure and leaves no listeners behind on each wait", async () => {
	let received = 0;
	const server = createServer((req, res) => {
		// A slow reader: writes keep meeting a full buffer, so the sender waits for drain many times.
		req.on("data", (chunk: Buffer) => {
			received += chunk.byteLength;
			req.pause();
			setTimeout(() => req.resume(), 1);
		});
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	close = () => new Promise((resolve) => server.close(() => resolve()));
	const warnings: string[] = [];
	const onWarning = (warning: Error) => warnings.push(warning.name);
	process.on("warning", onWarning);
	const chunk = new Uint8Array(64 * 1024).fill(7);
	const chunks = 256;
	try {
		const result = await postAs2({
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
			headers: [["content-type", "application/octet-stream"]],
			body: {
				size: chunk.byteLength * chunks,
				async *open() {
					for (let i = 0; i < chunks; i++) yield chunk;
				},
			},
			idleTimeoutMs: 10_000,
			totalTimeoutMs: 60_000,
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(result.status).toBe(200);
		expect(received).toBe(chunk.byteLength * chunks);
		expect(warnings).not.toContain("MaxListenersExceededWarning");
	} finally {
		process.off("warning", onWarning);
	}
});
