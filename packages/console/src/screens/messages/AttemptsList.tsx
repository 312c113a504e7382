/** Every transmission attempt (`/attempts`): outcome, HTTP status, durations, error, wire downloads. */
import { DataTable } from "../../components/DataTable.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import type { Attempt } from "../../types.ts";
import { DownloadButton } from "./DownloadButton.tsx";

const PHASES: [keyof Attempt["phases"], string][] = [
	["build_ms", "build"],
	["connect_ms", "connect"],
	["tls_ms", "TLS"],
	["send_ms", "send"],
	["wait_ms", "wait"],
];

export function AttemptsList({ attempts, environment }: { attempts: Attempt[]; environment: "test" | "live" }) {
	if (attempts.length === 0) {
		return (
			<p class="muted">
				{environment === "test"
					? "None: a test-environment message goes to the simulated partner, not over the network."
					: "No transmission attempt yet."}
			</p>
		);
	}
	return (
		<DataTable<Attempt>
			caption="Transmission attempts"
			rows={attempts}
			rowKey={(attempt) => String(attempt.number)}
			columns={[
				{ header: "#", numeric: true, render: (a) => a.number },
				{ header: "Outcome", render: (a) => <StatusBadge status={a.outcome} /> },
				{ header: "Started", render: (a) => formatDate(a.started_at) },
				{ header: "HTTP", numeric: true, render: (a) => a.http_status ?? "—" },
				{
					header: "Durations",
					render: (a) =>
						PHASES.filter(([key]) => a.phases[key] !== undefined)
							.map(([key, label]) => `${label} ${formatDuration(a.phases[key])}`)
							.join(" · ") || "—",
				},
				{
					header: "Error",
					render: (a) =>
						a.error_code ? (
							<>
								<code>{a.error_code}</code> {a.error_message}
							</>
						) : (
							"—"
						),
				},
				{
					header: "Wire",
					render: (a) => (
						<span class="button-row">
							{(["request", "response", "mdn"] as const).map((side) =>
								a.wire[side] ? (
									<DownloadButton
										key={side}
										path={a.wire[side]!}
										fileName={`attempt-${a.number}-${side}.http`}
										label={`${side === "mdn" ? "MDN" : side[0]!.toUpperCase() + side.slice(1)}`}
										description={`Download the ${side} of attempt ${a.number}`}
									/>
								) : null,
							)}
						</span>
					),
				},
			]}
		/>
	);
}
