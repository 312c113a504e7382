/**
 * Query the EPCIS events of the tenant's messages with SimpleEventQuery parameters
 * (`POST /v1/epcis/query`): the common ones as fields named after the parameter, any other as
 * `name=value` lines. The API's QueryParameterException names each bad parameter
 * (`parameters.<name>`), shown under its field.
 */
import { useState } from "preact/hooks";
import type { ApiError } from "../../api.ts";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { Field } from "../../components/Field.tsx";
import { FormButtons } from "../../components/FormButtons.tsx";
import { FormError } from "../../components/FormError.tsx";
import { errorUnder } from "../../components/field-errors.ts";
import { SelectField } from "../../components/SelectField.tsx";
import { formatDate } from "../../format.ts";
import { Link } from "../../router.tsx";
import type { EpcisEvent } from "./epcis.ts";
import { useEventQuery } from "./use-event-query.ts";

const EVENT_TYPES = ["ObjectEvent", "AggregationEvent", "TransactionEvent", "TransformationEvent", "AssociationEvent"];
const TEXT_PARAMETERS: [name: string, label: string, placeholder: string][] = [
	["EQ_bizStep", "Business step (EQ_bizStep)", "shipping"],
	["EQ_disposition", "Disposition (EQ_disposition)", "in_transit"],
	["MATCH_anyEPC", "Any EPC (MATCH_anyEPC)", "urn:epc:idpat:sgtin:0614141.*.*"],
	["EQ_readPoint", "Read point (EQ_readPoint)", "urn:epc:id:sgln:0614141.00777.0"],
	["EQ_bizLocation", "Business location (EQ_bizLocation)", "urn:epc:id:sgln:0614141.00888.0"],
];
const TIME_PARAMETERS: [string, string][] = [
	["GE_eventTime", "Event time from (GE_eventTime)"],
	["LT_eventTime", "Event time before (LT_eventTime)"],
];
const NAMED = [
	"eventType",
	"EQ_action",
	"orderDirection",
	...TEXT_PARAMETERS.map(([n]) => n),
	...TIME_PARAMETERS.map(([n]) => n),
];

/** The form as SimpleEventQuery parameters: empty fields left out, local times as instants, extra lines parsed. */
function parametersFrom(form: FormData): Record<string, string> {
	const parameters: Record<string, string> = {};
	for (const name of NAMED) {
		const value = String(form.get(name) ?? "").trim();
		if (!value) continue;
		parameters[name] = TIME_PARAMETERS.some(([n]) => n === name) ? new Date(value).toISOString() : value;
	}
	for (const line of String(form.get("more") ?? "").split("\n")) {
		const at = line.indexOf("=");
		if (at > 0) parameters[line.slice(0, at).trim()] = line.slice(at + 1).trim();
	}
	return parameters;
}

function epcsOf(event: EpcisEvent): string[] {
	return [
		...(event.parentID ? [event.parentID] : []),
		...(event.epcList ?? []),
		...(event.childEPCs ?? []),
		...(event.inputEPCList ?? []),
		...(event.outputEPCList ?? []),
	];
}

function Epcs({ event }: { event: EpcisEvent }) {
	const epcs = epcsOf(event);
	if (epcs.length === 0) return <>—</>;
	const more = epcs.length - 2;
	return (
		<>
			{epcs.slice(0, 2).map((epc) => (
				<code key={epc} class="break-anywhere">
					{epc}
					<br />
				</code>
			))}
			{more > 0 ? <span class="field-hint">and {more} more</span> : null}
		</>
	);
}

const paramError = (error: ApiError | null, name: string) => errorUnder(error, `parameters.${name}`);

export function QueryEvents() {
	const [parameters, setParameters] = useState<Record<string, string>>({});
	const query = useEventQuery(parameters);
	const error = query.error;
	const shownFields = error ? Object.keys(error.fields).filter((f) => NAMED.some((n) => f === `parameters.${n}`)) : [];
	return (
		<section class="stack" aria-labelledby="query-heading">
			<form
				class="card form"
				aria-labelledby="query-heading"
				onSubmit={(event) => {
					event.preventDefault();
					setParameters(parametersFrom(new FormData(event.currentTarget)));
					// The same parameters again still ask again: the index may have grown since.
					query.run();
				}}
			>
				<h2 id="query-heading">Query events</h2>
				<p class="field-hint">
					Events of the EPCIS documents in your messages, sent and received. Values may be URNs, Web URIs or bare CBV
					words; EPC fields take patterns.
				</p>
				<div class="filters roomy">
					<SelectField
						label="Event type (eventType)"
						name="eventType"
						error={paramError(error, "eventType")}
						options={[["", "Any type"], ...EVENT_TYPES.map((t): [string, string] => [t, t])]}
					/>
					<SelectField
						label="Action (EQ_action)"
						name="EQ_action"
						error={paramError(error, "EQ_action")}
						options={[
							["", "Any action"],
							["ADD", "ADD"],
							["OBSERVE", "OBSERVE"],
							["DELETE", "DELETE"],
						]}
					/>
					{TEXT_PARAMETERS.map(([name, label, placeholder]) => (
						<Field key={name} label={label} name={name} placeholder={placeholder} error={paramError(error, name)} />
					))}
					{TIME_PARAMETERS.map(([name, label]) => (
						<Field key={name} label={label} name={name} type="datetime-local" error={paramError(error, name)} />
					))}
					<SelectField
						label="Order (orderDirection)"
						name="orderDirection"
						error={paramError(error, "orderDirection")}
						options={[
							["", "Newest first"],
							["ASC", "Oldest first"],
						]}
					/>
				</div>
				<Field
					label="More parameters"
					hint="One name=value per line, e.g. EQ_bizTransaction_po=urn:epcglobal:cbv:bt:0614141073467:1152"
				>
					{({ id, describedBy }) => (
						<textarea id={id} name="more" rows={2} class="mono" aria-describedby={describedBy} />
					)}
				</Field>
				<FormError error={error} fields={shownFields} />
				<FormButtons submitLabel="Run query" />
			</form>
			{query.pagination?.total === 0 ? (
				<EmptyState title={Object.keys(parameters).length > 0 ? "No events match this query" : "No EPCIS events yet"}>
					<p>
						{Object.keys(parameters).length > 0
							? "Loosen a parameter, or clear them all to see every event."
							: "Events appear here once an EPCIS document is sent or received as a message payload."}
					</p>
				</EmptyState>
			) : (
				<DataTable<EpcisEvent>
					caption="EPCIS events"
					rows={query.rows}
					rowKey={(event) =>
						`${event.source_message_id}:${event.eventID ?? ""}:${event.eventTime}:${epcsOf(event)[0] ?? ""}`
					}
					pagination={query.pagination}
					onPage={query.setPage}
					columns={[
						{ header: "Type", render: (e) => e.type },
						{ header: "Event time", render: (e) => formatDate(e.eventTime) },
						{ header: "Action", render: (e) => e.action ?? "—" },
						{ header: "Business step", render: (e) => e.bizStep ?? "—" },
						{ header: "Disposition", render: (e) => e.disposition ?? "—" },
						{ header: "EPCs", render: (e) => <Epcs event={e} /> },
						{
							header: "Read point",
							render: (e) => (e.readPoint ? <code class="break-anywhere">{e.readPoint.id}</code> : "—"),
						},
						{ header: "Message", render: (e) => <Link to={`messages/${e.source_message_id}`}>Open message</Link> },
					]}
				/>
			)}
		</section>
	);
}
