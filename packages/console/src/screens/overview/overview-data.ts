/**
 * What the overview shows, read from the list endpoints and their filters (no endpoint of its
 * own): counts come from each filtered list's `pagination.total` at `per_page=1`.
 */
import { api } from "../../api.ts";
import type { Message } from "../../types.ts";

export const MESSAGE_STATUSES = ["queued", "processing", "sent", "delivered", "failed", "received"] as const;
const DAY_MS = 86_400_000;
/** An MDN still pending an hour after the message was created is worth a look. */
const MDN_OVERDUE_MS = 3_600_000;

export interface Certificate {
	id: string;
	name: string;
	type: "identity" | "partner";
	partner_id: string | null;
	subject: string;
	expires_at: string;
	active: boolean;
}

export interface WebhookEndpoint {
	id: string;
	url: string;
	active: boolean;
	failing_since: string | null;
	disabled_reason: string | null;
}

export interface Overview {
	today: Record<(typeof MESSAGE_STATUSES)[number], number>;
	failures: { rows: Message[]; total: number };
	mdnsOverdue: { rows: Message[]; total: number };
	expiring: Certificate[];
	failingWebhooks: WebhookEndpoint[];
}

/** Today as the API's from_date: a date means midnight UTC, the same the Messages filter uses. */
export function startOfToday(now = new Date()): string {
	return now.toISOString().slice(0, 10);
}

const total = async (query: Record<string, string | number>) =>
	(await api.page<Message>("/v1/messages", { ...query, per_page: 1 })).pagination.total;

export async function loadOverview(now = new Date()): Promise<Overview> {
	const fromDate = startOfToday(now);
	const overdueBefore = new Date(now.getTime() - MDN_OVERDUE_MS).toISOString();
	const [counts, failures, overdue, timedOut, certificates, webhooks] = await Promise.all([
		Promise.all(MESSAGE_STATUSES.map((status) => total({ status, from_date: fromDate }))),
		api.page<Message>("/v1/messages", { status: "failed", per_page: 5 }),
		api.page<Message>("/v1/messages", { mdn_status: "pending", to_date: overdueBefore, per_page: 5 }),
		total({ mdn_status: "timeout" }),
		api.page<Certificate>("/v1/certificates", { per_page: 100, active: true }),
		api.page<WebhookEndpoint>("/v1/webhook-endpoints", { per_page: 100 }),
	]);
	const soon = now.getTime() + 30 * DAY_MS;
	return {
		today: Object.fromEntries(MESSAGE_STATUSES.map((status, i) => [status, counts[i] ?? 0])) as Overview["today"],
		failures: { rows: failures.data, total: failures.pagination.total },
		mdnsOverdue: { rows: overdue.data, total: overdue.pagination.total + timedOut },
		expiring: certificates.data
			.filter((certificate) => new Date(certificate.expires_at).getTime() <= soon)
			.sort((a, b) => a.expires_at.localeCompare(b.expires_at)),
		failingWebhooks: webhooks.data.filter((endpoint) => endpoint.failing_since || endpoint.disabled_reason),
	};
}
