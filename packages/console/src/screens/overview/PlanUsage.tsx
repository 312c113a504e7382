/**
 * The account's plan and this month's usage against its limits: `GET /v1/account` (plan and
 * limits) and `GET /v1/account/usage` when the server has it (older servers: limits only).
 */
import { ApiError, api } from "../../api.ts";
import { formatBytes, formatDate } from "../../format.ts";
import { useApi } from "../../use-api.ts";

interface Account {
	name: string;
	plan: string;
	limits: {
		monthly_live_messages: number | null;
		max_payload_bytes: number;
		partners: number | null;
		certificates: number | null;
		requests_per_minute: number | null;
	};
}

interface Usage {
	period: { from: string; to: string };
	messages: { sent: number; received: number; limit: number | null };
	bytes: { sent: number; received: number };
	storage: { total_bytes: number };
}

async function loadUsage(): Promise<Usage | null> {
	try {
		return (await api.get<{ data: Usage }>("/v1/account/usage")).data;
	} catch (error) {
		if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return null;
		throw error;
	}
}

const limitText = (limit: number | null) => (limit === null ? "unlimited" : limit.toLocaleString());

export function PlanUsage() {
	const account = useApi(() => api.get<{ data: Account }>("/v1/account").then((answer) => answer.data));
	const usage = useApi(loadUsage);
	if (account.error) return null; // A credential without accounts:read: nothing to show here.
	if (!account.data) return null;
	const { plan, limits } = account.data;
	const used = usage.data ? usage.data.messages.sent + usage.data.messages.received : null;
	const limit = usage.data?.messages.limit ?? limits.monthly_live_messages;
	return (
		<section class="card" aria-labelledby="plan-usage">
			<h2 id="plan-usage">
				Plan: <span class="plan-name">{plan}</span>
			</h2>
			{used !== null && usage.data ? (
				<>
					<p class="stat-label">
						Live messages this month ({formatDate(usage.data.period.from)} – {formatDate(usage.data.period.to)})
					</p>
					<p class="stat-value">
						{used.toLocaleString()} <span class="stat-of">of {limitText(limit)}</span>
					</p>
					{limit !== null ? <meter class="meter" min={0} max={limit} value={used} aria-label="Messages used" /> : null}
					<dl class="facts">
						<dt>Data sent / received</dt>
						<dd>
							{formatBytes(usage.data.bytes.sent)} / {formatBytes(usage.data.bytes.received)}
						</dd>
						<dt>Storage</dt>
						<dd>{formatBytes(usage.data.storage.total_bytes)}</dd>
					</dl>
				</>
			) : null}
			<dl class="facts">
				<dt>Live messages a month</dt>
				<dd>{limitText(limits.monthly_live_messages)}</dd>
				<dt>Largest message</dt>
				<dd>{formatBytes(limits.max_payload_bytes)}</dd>
				<dt>Partners</dt>
				<dd>{limitText(limits.partners)}</dd>
				<dt>Requests a minute</dt>
				<dd>{limitText(limits.requests_per_minute)}</dd>
			</dl>
		</section>
	);
}
