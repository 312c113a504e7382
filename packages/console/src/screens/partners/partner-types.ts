/** Partners, certificates and their checks as the console reads them (interface spec, Partners; decisions.md). */
import type { ErrorHint } from "../../types.ts";

export type MdnMode = "sync" | "async" | "none";

export interface Partner {
	id: string;
	name: string;
	as2_id: string;
	url: string;
	active: boolean;
	type: "tenant" | "inherited";
	master_partner_id: string | null;
	has_overrides: boolean;
	sign: boolean;
	encrypt: boolean;
	compress: boolean;
	mdn_mode: MdnMode;
	sign_algorithm: string | null;
	encrypt_algorithm: string | null;
	deactivated_at: string | null;
	created_at: string;
	updated_at: string;
}

export interface CompatibilitySwitches {
	signed_attributes: boolean;
	algorithm_protection: boolean;
	transfer_encoding: "binary" | "base64";
	compress_order: "before-sign" | "after-sign";
	key_encryption: string;
	chunked: boolean;
}

export interface PartnerDetail extends Partner {
	certificates: Certificate[];
	message_stats: {
		total_sent: number;
		total_received: number;
		success_rate: number | null;
		last_message_at: string | null;
	};
	connection_status: {
		last_test: string | null;
		last_test_result: "success" | "warning" | "failure" | null;
		response_time_ms: number | null;
	};
	last_message_at: string | null;
	override_settings?: Record<string, unknown>;
	/** The profile and the switches the partner sets itself. */
	compatibility: { profile: string | null } & Partial<CompatibilitySwitches>;
	/** Every switch as messages are built: defaults, then profile, then own switches. */
	effective_compatibility: CompatibilitySwitches;
}

/** `GET /v1/partners/{id}/configuration`: the groups the flat partner does not carry. */
export interface PartnerConfiguration {
	http: { auth: { username: string; password_set: boolean } | null; headers: Record<string, string> };
	connection: { timeout_seconds: number; retry_attempts: number; retry_interval_seconds: number | null };
}

export interface Certificate {
	id: string;
	name: string;
	type: "identity" | "partner";
	usage: "encryption" | "signing" | "both";
	partner_id: string | null;
	subject: string;
	issuer: string;
	serial_number: string;
	fingerprint: string;
	key_algorithm: string;
	key_bits: number;
	active: boolean;
	has_private_key: boolean;
	origin: "generated" | "uploaded";
	not_before: string;
	expires_at: string;
	activated_at: string | null;
	created_at: string;
	certificate_pem: string;
}

export interface PartnerStats {
	partner_id: string;
	period: "7d" | "30d" | "90d";
	messages: { sent: number; received: number; total: number };
	success_rates: { outbound: number | null; inbound: number | null; overall: number | null };
	avg_processing_times: { outbound_seconds: number | null; inbound_seconds: number | null };
	recent_activity: { date: string; sent: number; received: number; failures: number }[];
}

export interface ValidationResult {
	valid: boolean;
	checks: { name: string; status: "pass" | "fail" | "warning"; message: string; issue?: string }[];
	hints: (ErrorHint & { messages: number; last_message_id: string; last_failed_at: string | null })[];
}

export interface TestResult {
	success: boolean;
	message: string;
	data: {
		test_type: string;
		results: {
			connectivity: boolean;
			response_time_ms: number | null;
			error?: string;
			hint: ErrorHint | null;
		};
		timeline: { step: string; status: "success" | "warning" | "failure"; duration_ms: number; details: object }[];
		duration_ms: number;
		tested_at: string;
	};
}

export interface CompatibilityProfile {
	name: string;
	description: string;
	switches: CompatibilitySwitches;
	why: string;
}
