/** The API's resources as the console reads them (interface spec; only the fields it shows). */
/** A known partner quirk that explains a failure, and the partner setting that fixes it. */
export interface ErrorHint {
	setting: string;
	value: string | boolean;
	profile?: string;
	why: string;
}

export interface Message {
	id: string;
	message_id: string;
	partner: { id: string; name: string | null; as2_id: string | null };
	status: string;
	direction: "inbound" | "outbound";
	environment: "test" | "live";
	subject: string | null;
	content_type: string;
	filename: string | null;
	bytes: number;
	encrypted: boolean;
	signed: boolean;
	compressed: boolean;
	mdn_mode: "sync" | "async" | "none";
	mdn_status: string;
	attempts: number;
	error_code: string | null;
	error_message: string | null;
	error_hint: ErrorHint | null;
	next_attempt_at: string | null;
	scheduled_at: string | null;
	resent_from: string | null;
	resent_as: string[];
	sent_at: string | null;
	delivered_at: string | null;
	created_at: string;
}

export interface MessageDetail extends Message {
	partner: Message["partner"] & { url: string };
	mdn_data: {
		disposition: string;
		received_content_mic: string | null;
		reporting_ua: string | null;
		signed: boolean;
		signature_valid: boolean | null;
		mic_matches: boolean | null;
		received_at: string;
	} | null;
	mic: string | null;
	transmission_time_ms: number | null;
	failed_at: string | null;
}

export interface TimelineEntry {
	at: string;
	event: string;
	event_id: string;
	status: string | null;
	attempt: number | null;
	data: Record<string, unknown>;
}

export interface Attempt {
	number: number;
	direction: "inbound" | "outbound";
	started_at: string;
	finished_at: string | null;
	url: string | null;
	http_status: number | null;
	bytes_sent: number | null;
	bytes_received: number | null;
	outcome: "in_progress" | "succeeded" | "retrying" | "failed";
	error_code: string | null;
	error_message: string | null;
	tls_version: string | null;
	phases: { build_ms?: number; connect_ms?: number; tls_ms?: number; send_ms?: number; wait_ms?: number };
	wire: { request: string | null; response: string | null; mdn: string | null };
}
