/** The verdict of `POST /v1/epcis/validate`: per rule, then each error and warning located by rule, event and path. */
import { Fragment } from "preact";
import { DataTable } from "../../components/DataTable.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { EPCIS_RULES, type EpcisIssue, type EpcisValidation } from "./epcis.ts";

const ruleLabel = (rule: string) => EPCIS_RULES.find(([name]) => name === rule)?.[1] ?? rule;

function IssueTable({ caption, issues }: { caption: string; issues: EpcisIssue[] }) {
	return (
		<DataTable<EpcisIssue>
			caption={caption}
			rows={issues}
			rowKey={(issue) => `${issue.rule}:${issue.code}:${issue.path}:${issue.line}:${issue.column}:${issue.message}`}
			columns={[
				{ header: "Rule", render: (i) => ruleLabel(i.rule) },
				{ header: "Code", render: (i) => <code>{i.code}</code> },
				{ header: "Message", render: (i) => <span class="break-anywhere">{i.message}</span> },
				{ header: "Event index", numeric: true, render: (i) => i.event_index ?? "—" },
				{ header: "Path", render: (i) => (i.path ? <code class="break-anywhere">{i.path}</code> : "—") },
				{ header: "Line", numeric: true, render: (i) => (i.line ? `${i.line}:${i.column ?? 1}` : "—") },
			]}
		/>
	);
}

export function ValidationReport({ result }: { result: EpcisValidation }) {
	return (
		<section class="stack" aria-labelledby="verdict-heading">
			<div class="card">
				<h2 id="verdict-heading">
					{result.valid
						? "The document is valid"
						: `The document is not valid: ${result.errors.length} ${result.errors.length === 1 ? "error" : "errors"}`}
				</h2>
				<dl class="facts">
					<dt>EPCIS version</dt>
					<dd>{result.epcis_version ?? "not an EPCIS document"}</dd>
					<dt>Events</dt>
					<dd>{result.event_count}</dd>
					{Object.entries(result.validation_results).map(([rule, verdict]) => (
						<Fragment key={rule}>
							<dt>{ruleLabel(rule)}</dt>
							<dd>
								<StatusBadge status={verdict} />
							</dd>
						</Fragment>
					))}
				</dl>
			</div>
			{result.errors.length > 0 ? (
				<>
					<h3>Errors</h3>
					<IssueTable caption="Validation errors" issues={result.errors} />
				</>
			) : null}
			{result.warnings.length > 0 ? (
				<>
					<h3>Warnings</h3>
					<IssueTable caption="Validation warnings" issues={result.warnings} />
				</>
			) : null}
		</section>
	);
}
