/** Webhook resources as `/v1/webhook-endpoints` answers them (interface spec; decisions.md). */
export interface WebhookEndpoint {
	id: string;
	url: string;
	events: string[];
	active: boolean;
	account_events: boolean;
	failing_since: string | null;
	disabled_reason: string | null;
	created_at: string;
	updated_at: string;
}

/** The create response: the one time `secret` is there. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
	secret: string;
}

export interface WebhookAttempt {
	attempt: number;
	status: "succeeded" | "failed";
	response_status: number | null;
	response_time_ms: number | null;
	/** The first 1024 characters the receiver answered. */
	response_body: string | null;
	error: string | null;
	attempted_at: string;
}

export interface WebhookDelivery {
	id: string;
	endpoint_id: string;
	event: string;
	status: "pending" | "succeeded" | "failed";
	attempts: number;
	next_attempt_at: string | null;
	last_attempt_at: string | null;
	last_response_status: number | null;
	last_error: string | null;
	payload: Record<string, unknown>;
	attempt_log: WebhookAttempt[];
	created_at: string;
}

export interface WebhookStats {
	endpoint_id: string;
	total_deliveries: number;
	successful_deliveries: number;
	failed_deliveries: number;
	success_rate: number;
	avg_response_time_ms: number;
	last_delivery_at: string | null;
}

export interface WebhookTestResult {
	delivery_id: string;
	status: "succeeded" | "failed";
	response_status: number | null;
	response_time_ms: number;
	error: string | null;
}

/** Interface spec, Event kinds: the categories first (`<category>.*`), then each kind. */
export const EVENT_CHOICES: [string, string][] = [
	["*", "Every event (*)"],
	["message.*", "All message events"],
	["message.queued", "message.queued"],
	["message.sent", "message.sent"],
	["message.delivered", "message.delivered"],
	["message.failed", "message.failed"],
	["message.received", "message.received"],
	["partner.*", "All partner events"],
	["certificate.*", "All certificate events"],
	["certificate.expiring", "certificate.expiring"],
	["certificate.expired", "certificate.expired"],
];

/** An endpoint's state in one word: failing deliveries matter more than the flag. */
export function endpointStatus(endpoint: WebhookEndpoint): string {
	if (!endpoint.active) return "inactive";
	return endpoint.failing_since ? "failing" : "active";
}
