/**
 * The account's plan and this month's usage against its limits: `GET /v1/account` (plan and
 * limits) and `GET /v1/account/usage` (a server without it, or a credential without
 * accounts:read, shows the limits only).
 */
import { ApiError, api } from "../../api.ts";
import { formatBytes, formatDay } from "../../format.ts";
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
	period: { start: string; end: string };
	live_messages: { used: number; limit: number | null };
	live_bytes: number;
	unsigned_received: { messages: number; bytes: number };
	storage: { payload_bytes: number; wire_bytes: number; total_bytes: number };
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
	const used = usage.data?.live_messages.used ?? null;
	const limit = usage.data?.live_messages.limit ?? limits.monthly_live_messages;
	return (
		<section class="card" aria-labelledby="plan-usage">
			<h2 id="plan-usage">
				Plan: <span class="plan-name">{plan}</span>
			</h2>
			{used !== null && usage.data ? (
				<>
					<p class="stat-label">Live messages this month (since {formatDay(usage.data.period.start)})</p>
					<p class="stat-value">
						{used.toLocaleString()} <span class="stat-of">of {limitText(limit)}</span>
					</p>
					{limit !== null ? <meter class="meter" min={0} max={limit} value={used} aria-label="Messages used" /> : null}
					<dl class="facts">
						<dt>Live payload</dt>
						<dd>{formatBytes(usage.data.live_bytes)}</dd>
						<dt>Unsigned received</dt>
						<dd>{usage.data.unsigned_received.messages.toLocaleString()} (not counted)</dd>
						<dt>Storage kept</dt>
						<dd>{formatBytes(usage.data.storage.total_bytes)}</dd>
						<dt>of it wire captures</dt>
						<dd>{formatBytes(usage.data.storage.wire_bytes)}</dd>
					</dl>
					<h3 class="subhead">Plan limits</h3>
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
