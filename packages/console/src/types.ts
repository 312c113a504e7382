/** The API's resources as the console reads them (interface spec; only the fields it shows). */
export interface ErrorHint {
	code?: string;
	title?: string;
	hint?: string;
	[key: string]: unknown;
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
	resent_from: string | null;
	resent_as: string[];
	sent_at: string | null;
	delivered_at: string | null;
	created_at: string;
}
