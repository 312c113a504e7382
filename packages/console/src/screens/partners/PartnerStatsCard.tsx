/** `GET /v1/partners/{id}/stats` over 7, 30 or 90 days: the counts, the rates and a daily chart. */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { BarChart } from "../../components/BarChart.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Link } from "../../router.tsx";
import type { PartnerStats } from "./partner-types.ts";

const PERIODS = [
	["7d", "7 days"],
	["30d", "30 days"],
	["90d", "90 days"],
] as const;

const percent = (value: number | null) => (value === null ? "—" : `${value}%`);
const seconds = (value: number | null) => (value === null ? "—" : `${value.toFixed(1)} s`);

export function PartnerStatsCard({ partnerId }: { partnerId: string }) {
	const [period, setPeriod] = useState<PartnerStats["period"]>("30d");
	const [stats, setStats] = useState<PartnerStats | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	useEffect(() => {
		let current = true;
		api
			.get<{ data: PartnerStats }>(`/v1/partners/${encodeURIComponent(partnerId)}/stats`, { period })
			.then((answer) => {
				if (!current) return;
				setStats(answer.data);
				setError(null);
			})
			.catch((failure: ApiError) => current && setError(failure));
		return () => {
			current = false;
		};
	}, [partnerId, period]);
	const days = stats?.recent_activity ?? [];
	return (
		<section class="card" aria-labelledby="partner-stats">
			<div class="card-head">
				<h2 id="partner-stats">Statistics</h2>
				<fieldset class="segmented">
					<legend class="visually-hidden">Period</legend>
					{PERIODS.map(([value, label]) => (
						<button
							key={value}
							type="button"
							class="button ghost"
							aria-pressed={period === value ? "true" : "false"}
							onClick={() => setPeriod(value)}
						>
							{label}
						</button>
					))}
				</fieldset>
			</div>
			<ErrorNote error={error} />
			{stats ? (
				<>
					<dl class="stat-row">
						<div>
							<dt>Sent</dt>
							<dd>{stats.messages.sent.toLocaleString()}</dd>
						</div>
						<div>
							<dt>Received</dt>
							<dd>{stats.messages.received.toLocaleString()}</dd>
						</div>
						<div>
							<dt>Success rate</dt>
							<dd>{percent(stats.success_rates.overall)}</dd>
						</div>
						<div>
							<dt>Average delivery</dt>
							<dd>{seconds(stats.avg_processing_times.outbound_seconds)}</dd>
						</div>
					</dl>
					{stats.messages.total === 0 ? (
						<p class="empty-inline">
							No messages with this partner in the last {period.replace("d", " days")}: send one from{" "}
							<Link to="messages/new">Send a message</Link>.
						</p>
					) : (
						<BarChart
							caption={`Messages per day, last ${period.replace("d", " days")}`}
							labels={days.map((d) => d.date)}
							series={[
								{ name: "Sent", tone: "accent", values: days.map((d) => d.sent) },
								{ name: "Received", tone: "good", values: days.map((d) => d.received) },
								{ name: "Failed", tone: "bad", overlay: true, values: days.map((d) => d.failures) },
							]}
						/>
					)}
				</>
			) : null}
		</section>
	);
}
