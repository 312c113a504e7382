import type { WebhookEndpointStore } from "@as2kit/core/store";

/**
 * Whether an account has an active webhook endpoint, as the transaction whose body runs sees it
 * (events.ts asks it for every event it writes): the sender writes three events a message, two
 * of them in its outcome's transaction, and each asked the same question of the same snapshot
 * (issue #20, stop 31).
 *
 * Why an answer holds for the rest of a body: a body runs inside the connection's write
 * transaction (BEGIN IMMEDIATE, connection.ts), so no other connection commits while it runs,
 * and its reads see one snapshot plus its own writes. Only its own writes to `webhook_endpoints`
 * can change the answer, and those go through the transaction's `webhookEndpoints`
 * (`forgetOnWrite`): they forget every answer first. The answers are forgotten as every body
 * starts (create-store.ts), so the next transaction, on this connection or after another
 * instance's commit, asks again: an endpoint created anywhere still gets the very next event.
 */
export type ActiveEndpointAnswers = Map<string, boolean>;

/** The reads of the endpoint store; any other method may write, so it forgets the answers. */
const READS = new Set<string>(["get", "list", "listActive", "stats"] satisfies Array<keyof WebhookEndpointStore>);

/**
 * `store`, forgetting `answers` before each call that may write (every method but the reads, so
 * a write method added to the port forgets them too). The call's statement runs in the same
 * synchronous step as the forgetting (connection.ts runs a transaction's op when it is called),
 * so an event written after it, even one started in the same tick, asks again.
 */
export function forgetOnWrite(store: WebhookEndpointStore, answers: ActiveEndpointAnswers): WebhookEndpointStore {
	const wrapped: Record<string, unknown> = {};
	for (const [name, method] of Object.entries(store) as Array<[string, (...args: unknown[]) => unknown]>) {
		wrapped[name] = READS.has(name)
			? method
			: (...args: unknown[]) => {
					answers.clear();
					return method(...args);
				};
	}
	return wrapped as unknown as WebhookEndpointStore;
}
