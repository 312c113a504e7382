/** `GET /v1/webhook-endpoints-stats`, keyed by endpoint id; stats are a garnish, so a failure leaves them out. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { WebhookStats } from "./webhook.ts";

export function useWebhookStats(version: unknown): Map<string, WebhookStats> {
	const [stats, setStats] = useState(new Map<string, WebhookStats>());
	useEffect(() => {
		let current = true;
		api
			.get<{ data: WebhookStats[] }>("/v1/webhook-endpoints-stats")
			.then((answer) => current && setStats(new Map(answer.data.map((s) => [s.endpoint_id, s]))))
			.catch(() => undefined);
		return () => {
			current = false;
		};
	}, [version]);
	return stats;
}
