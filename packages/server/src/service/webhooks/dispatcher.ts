import { randomUUID } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import type { WebhookDeliveryRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type AttemptContext, attemptDelivery } from "./attempt.ts";
import { webhookSecretKey } from "./endpoint-secret.ts";
import { createWebhookSender, type WebhookSender } from "./http-sender.ts";

/** Lease beyond the attempt's own deadline, for the bookkeeping after it. */
const LEASE_MARGIN_MS = 30_000;

export interface DeliveryDispatcher {
	readonly dispatcherId: string;
	start(): void;
	/** Deliveries may be due: claim now rather than after the idle sleep. */
	wake(): void;
	/** Stops claiming; resolves when the attempts in flight have finished. */
	stop(): Promise<void>;
}

export interface DispatcherOptions {
	/** Attempts in flight at once in this process; default 32. */
	concurrency?: number;
	/** Sleep between polls when idle; default 500 ms. */
	pollMs?: number;
	dispatcherId?: string;
	sender?: WebhookSender;
}

/**
 * Sends due webhook deliveries. Deliveries are their own leased queue rather than one
 * generic job each, because the per-endpoint concurrency cap has to be decided when work is
 * claimed: a generic worker would claim a capped endpoint's job, find the endpoint busy and
 * put it back, over and over, while a slow endpoint's backlog crowded the queue. Here a claim
 * (`claimDue`) takes only what may be sent now, and one slow endpoint holds at most its cap
 * of this pool's places, never the rest.
 *
 * No double send: a claimed delivery is leased to this dispatcher for the attempt's deadline
 * plus a margin. An attempt cannot outlive its deadline, so a live dispatcher always records
 * it (releasing the lease) before any other instance may claim the delivery; only a dead
 * one's deliveries come back, after the lease, to be sent again (at-least-once, spec Delivery
 * rules 1). Instances must keep their clocks within the margin of each other.
 */
export function createDeliveryDispatcher(deps: ServiceDeps, options: DispatcherOptions = {}): DeliveryDispatcher {
	const { store, now, logger, config } = deps;
	const concurrency = options.concurrency ?? 32;
	const pollMs = options.pollMs ?? 500;
	const dispatcherId = options.dispatcherId ?? `dispatcher-${randomUUID()}`;
	const timeoutMs = config.webhookTimeoutSeconds * 1000;
	const ownSender = !options.sender;
	const context: AttemptContext = {
		deps,
		secretKey: webhookSecretKey(config.masterKey),
		sender: options.sender ?? createWebhookSender({ timeoutMs, allowPrivateTargets: config.allowPrivateTargets }),
	};
	const running = new Set<Promise<void>>();
	let stopping = false;
	let loop: Promise<void> | null = null;
	let wakeUp: (() => void) | null = null;
	// A wake() that arrives while a claim is running must not be lost to the next sleep.
	let woken = false;
	const signal = () => {
		woken = true;
		wakeUp?.();
	};

	async function poll(): Promise<void> {
		while (!stopping) {
			woken = false;
			let claimed: WebhookDeliveryRecord[] = [];
			const free = concurrency - running.size;
			if (free > 0) {
				const at = now();
				try {
					claimed = await store.webhookDeliveries.claimDue({
						limit: free,
						perEndpointLimit: config.webhookEndpointConcurrency,
						lockedBy: dispatcherId,
						now: at,
						lockedUntil: new Date(at.getTime() + timeoutMs + LEASE_MARGIN_MS),
					});
				} catch (error) {
					logger.error({ err: error }, "claiming webhook deliveries failed");
				}
			}
			for (const delivery of claimed) {
				const task = attemptDelivery(context, delivery, dispatcherId, "scheduled")
					.then(() => undefined)
					.catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, "webhook attempt failed"));
				running.add(task);
				void task.finally(() => {
					running.delete(task);
					signal();
				});
			}
			if (!woken && (claimed.length === 0 || running.size >= concurrency)) {
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, pollMs);
					wakeUp = () => {
						clearTimeout(timer);
						resolve();
					};
				});
				wakeUp = null;
			}
			// Let I/O run between claims (see the job worker): SQLite resolves without waiting.
			await setImmediate();
		}
	}

	return {
		dispatcherId,
		start() {
			if (loop) return;
			loop = poll();
		},
		wake: signal,
		async stop() {
			stopping = true;
			wakeUp?.();
			await loop;
			await Promise.all(running);
			if (ownSender) context.sender.close();
		},
	};
}
