import type { WireCapture } from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant, formatOptionalInstant } from "../views/instant.ts";
import { instantSchema, nullableInstantSchema } from "../views/schema-types.ts";
import type { ListedAttempt } from "./attempts-reads.ts";

const nullableInt = (description: string) => v.pipe(v.nullable(v.number()), v.description(description));
const phaseMs = (description: string) => v.optional(v.pipe(v.number(), v.description(`${description} (ms)`)));

/** `GET /v1/messages/{id}/attempts` items (issue #18, section 2). */
export const attemptSchema = v.object({
	number: v.pipe(v.number(), v.description("1, 2, … in the order the attempts started")),
	direction: v.picklist(["inbound", "outbound"]),
	started_at: instantSchema,
	finished_at: nullableInstantSchema,
	url: v.pipe(v.nullable(v.string()), v.description("the partner URL POSTed to (outbound)")),
	http_status: nullableInt("the HTTP status of the answer"),
	bytes_sent: nullableInt("bytes written to the connection for this exchange (TLS records included)"),
	bytes_received: nullableInt("bytes read from the connection for this exchange"),
	outcome: v.pipe(
		v.picklist(["in_progress", "succeeded", "retrying", "failed"]),
		v.description(
			"in_progress: being sent now (finished_at null; its figures come with its outcome); succeeded: the partner took the message (2xx; a sync MDN's verdict is on the message); retrying: failed, another attempt is scheduled; failed: final",
		),
	),
	error_code: v.nullable(v.string()),
	error_message: v.nullable(v.string()),
	tls_version: v.pipe(v.nullable(v.string()), v.description("TLSv1.2, TLSv1.3 … when the connection was TLS")),
	peer_certificate_sha256: v.pipe(
		v.nullable(v.string()),
		v.description("hex SHA-256 of the partner's TLS leaf certificate (DER)"),
	),
	phases: v.pipe(
		v.object({
			build_ms: phaseMs("preparing the signed/encrypted message"),
			connect_ms: phaseMs("resolving and connecting; absent on a reused keep-alive connection"),
			tls_ms: phaseMs("the TLS handshake"),
			send_ms: phaseMs("writing the request"),
			wait_ms: phaseMs("from the last byte sent to the answer's last byte (a sync MDN is made meanwhile)"),
		}),
		v.description("durations the transport measured; a phase it did not reach is absent"),
	),
	wire: v.pipe(
		v.object({
			request: v.nullable(v.string()),
			response: v.nullable(v.string()),
			mdn: v.nullable(v.string()),
		}),
		v.description(
			"the download path of each captured side, null when not captured (AS2_WIRE_CAPTURE=0) or past retention",
		),
	),
});

export function attemptView(messageId: string, a: ListedAttempt): v.InferOutput<typeof attemptSchema> {
	const base = `/v1/messages/${messageId}/attempts/${a.number}`;
	const link = (capture: WireCapture | null, side: string) => (capture ? `${base}/${side}` : null);
	return {
		number: a.number,
		direction: a.direction,
		started_at: formatInstant(a.startedAt),
		finished_at: formatOptionalInstant(a.finishedAt),
		url: a.url,
		http_status: a.httpStatus,
		bytes_sent: a.bytesSent,
		bytes_received: a.bytesReceived,
		outcome: a.outcome,
		error_code: a.errorCode,
		error_message: a.errorMessage,
		tls_version: a.tlsVersion,
		peer_certificate_sha256: a.peerCertificateSha256,
		phases: {
			...(a.phases.buildMs === undefined ? {} : { build_ms: a.phases.buildMs }),
			...(a.phases.connectMs === undefined ? {} : { connect_ms: a.phases.connectMs }),
			...(a.phases.tlsMs === undefined ? {} : { tls_ms: a.phases.tlsMs }),
			...(a.phases.sendMs === undefined ? {} : { send_ms: a.phases.sendMs }),
			...(a.phases.waitMs === undefined ? {} : { wait_ms: a.phases.waitMs }),
		},
		wire: { request: link(a.request, "request"), response: link(a.response, "response"), mdn: link(a.mdn, "mdn") },
	};
}
