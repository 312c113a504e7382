// The bench's webhook receiver, in its own process so that it does not share the event loop
// with the deliveries it measures. Answers 200 at once; reports each delivery's lag (receipt
// minus the event's `timestamp`) once it has seen `expected` distinct delivery ids.
import { createServer } from "node:http";

let expected = 0;
let lags = [];
let seen = new Set();
let duplicates = 0;
let firstAt = 0;
let lastAt = 0;

const server = createServer((req, res) => {
	const chunks = [];
	req.on("data", (chunk) => chunks.push(chunk));
	req.on("end", () => {
		const now = Date.now();
		const id = req.headers["x-webhook-id"];
		if (seen.has(id)) duplicates++;
		else {
			seen.add(id);
			const { timestamp } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
			lags.push(now - Date.parse(timestamp));
			firstAt ||= now;
			lastAt = now;
		}
		res.writeHead(204).end();
		if (expected > 0 && seen.size === expected) {
			process.send({ type: "done", lags, duplicates, firstAt, lastAt });
			expected = 0;
		}
	});
});

process.on("message", (message) => {
	if (message.type === "expect") {
		expected = message.count;
		lags = [];
		seen = new Set();
		duplicates = 0;
		firstAt = 0;
		lastAt = 0;
		process.send({ type: "ready" });
	}
	if (message.type === "stop") server.close(() => process.exit(0));
});

server.listen(0, "127.0.0.1", () => process.send({ type: "listening", port: server.address().port }));
