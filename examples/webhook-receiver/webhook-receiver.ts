/**
 * A small webhook receiver for as2kit events, for integrators to copy: it verifies each
 * delivery (verify-webhook.ts), answers 401 to a bad signature or a stale timestamp, and
 * de-duplicates by delivery id, since as2kit delivers at least once (a retry may repeat a
 * delivery your receiver already handled). Answer fast: as2kit counts anything but a 2xx
 * within 30 seconds as a failure and retries it later.
 *
 * Run it from the repository root: `WEBHOOK_SECRET=whsec_… npm start -w examples/webhook-receiver`
 * (or `… npx tsx examples/webhook-receiver/webhook-receiver.ts`; `PORT` picks the port), then point an endpoint at http://127.0.0.1:4000/ (the server needs AS2_ALLOW_HTTP=1 for
 * http:// and AS2_ALLOW_PRIVATE_TARGETS=1 for a local address; in production, serve HTTPS).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "./verify-webhook.ts";

const MAX_BODY_BYTES = 1024 * 1024;
/** Longer than as2kit's whole retry schedule (about 31 hours by default). */
const REMEMBER_MS = 48 * 3600 * 1000;

/**
 * Delivery ids already handled. In memory here; in production use your database, e.g. a
 * table with a unique key on the id, inserted in the transaction that handles the event.
 */
export class SeenDeliveries {
	private readonly seen = new Map<string, number>();
	has(id: string, now = Date.now()): boolean {
		const until = this.seen.get(id);
		return until !== undefined && until > now;
	}
	add(id: string, now = Date.now()): void {
		this.seen.set(id, now + REMEMBER_MS);
		for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
	}
}

export interface ReceiverOptions {
	secret: string;
	/** Handles one event; throw to have as2kit retry the delivery later. */
	onEvent: (event: WebhookEvent) => void | Promise<void>;
	seen?: SeenDeliveries;
}

export function createWebhookReceiver(options: ReceiverOptions): Server {
	const seen = options.seen ?? new SeenDeliveries();
	const inProgress = new Set<string>();
	return createServer(async (req, res) => {
		const reply = (status: number, body: object): void =>
			void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
		if (req.method !== "POST") return reply(405, { error: "POST only" });
		let event: WebhookEvent;
		try {
			event = verifyWebhook({ secret: options.secret, body: await readBody(req), headers: req.headers });
		} catch (error) {
			if (error instanceof WebhookVerificationError) return reply(401, { error: error.message });
			return reply(400, { error: "unreadable request" });
		}
		if (seen.has(event.id)) return reply(200, { received: true, duplicate: true });
		if (inProgress.has(event.id)) return reply(409, { error: "this delivery is being handled" });
		inProgress.add(event.id);
		try {
			await options.onEvent(event);
			seen.add(event.id);
			reply(200, { received: true });
		} catch {
			reply(500, { error: "handling failed; as2kit will retry" });
		} finally {
			inProgress.delete(event.id);
		}
	});
}

async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) throw new Error("body too large");
		chunks.push(chunk);
	}
	return Buffer.concat(chunks).toString("utf8");
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const secret = process.env.WEBHOOK_SECRET;
	if (!secret) throw new Error("set WEBHOOK_SECRET to the secret shown when you created the endpoint");
	const port = Number(process.env.PORT ?? 4000);
	createWebhookReceiver({
		secret,
		onEvent: (event) => console.log(`${event.id} ${event.event}`, JSON.stringify(event.data)),
	}).listen(port, "127.0.0.1", () => console.log(`receiving as2kit webhooks on http://127.0.0.1:${port}/`));
}
