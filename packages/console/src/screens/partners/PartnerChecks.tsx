/**
 * Validate (configuration: AS2 id, endpoint, certificates, algorithms) and test (DNS, TCP, TLS,
 * and with `mdn`/`full` a real AS2 exchange) a partner, with the hints the API gives: each
 * names the partner setting that would likely fix a failure and the quirk behind it.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import type { TestResult, ValidationResult } from "./partner-types.ts";

interface CompatibilityHint {
	setting: string;
	value: string | boolean;
	profile?: string;
	why: string;
}

const CHECK_TONE = { pass: "success", fail: "failed", warning: "pending" } as const;

export function PartnerChecks({ partnerId, onTested }: { partnerId: string; onTested: () => void }) {
	const base = `/v1/partners/${encodeURIComponent(partnerId)}`;
	const [validation, setValidation] = useState<ValidationResult | null>(null);
	const [test, setTest] = useState<TestResult | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [busy, setBusy] = useState<"validate" | "test" | null>(null);
	const run = async (which: "validate" | "test", action: () => Promise<void>) => {
		setBusy(which);
		setError(null);
		try {
			await action();
		} catch (failure) {
			setError(failure as ApiError);
		} finally {
			setBusy(null);
		}
	};
	const validate = () =>
		run("validate", async () => {
			setValidation(await api.post<ValidationResult>(`${base}/validate`));
		});
	const runTest = (event: Event) => {
		event.preventDefault();
		const testType = new FormData(event.currentTarget as HTMLFormElement).get("test_type");
		return run("test", async () => {
			setTest(await api.post<TestResult>(`${base}/test`, { test_type: testType }));
			onTested();
		});
	};
	return (
		<section class="card" aria-labelledby="partner-checks">
			<div class="card-head">
				<h2 id="partner-checks">Validate and test</h2>
			</div>
			<div class="check-actions">
				<button type="button" class="button" disabled={busy !== null} onClick={validate}>
					{busy === "validate" ? "Validating…" : "Validate configuration"}
				</button>
				<form class="inline-form" aria-label="Test the connection" onSubmit={runTest}>
					<SelectField
						label="Test"
						name="test_type"
						options={[
							["ping", "Connection (DNS, TCP, TLS)"],
							["mdn", "AS2 message with MDN"],
							["full", "Full: connection and AS2"],
						]}
					/>
					<button type="submit" class="button" disabled={busy !== null}>
						{busy === "test" ? "Testing…" : "Run test"}
					</button>
				</form>
			</div>
			<ErrorNote error={error} />
			{validation ? (
				<div class="check-result" aria-live="polite">
					<h3>
						Configuration <StatusBadge status={validation.valid ? "valid" : "failed"} />
					</h3>
					<ul class="check-list">
						{validation.checks.map((check) => (
							<li key={check.name}>
								<StatusBadge status={CHECK_TONE[check.status]} /> <strong>{check.name.replaceAll("_", " ")}</strong>:{" "}
								{check.message}
								{check.issue ? <code class="issue-code">{check.issue}</code> : null}
							</li>
						))}
					</ul>
					{validation.hints.map((hint) => (
						<HintBox key={`${hint.setting}=${String(hint.value)}`} hint={hint as unknown as CompatibilityHint}>
							Explains {hint.messages} of the latest failed messages.
						</HintBox>
					))}
				</div>
			) : null}
			{test ? (
				<div class="check-result" aria-live="polite">
					<h3>
						Test ({test.data.test_type}) <StatusBadge status={test.success ? "success" : "failed"} />
					</h3>
					<p>
						{test.message} · {formatDuration(test.data.duration_ms)} · {formatDate(test.data.tested_at)}
					</p>
					<ol class="check-list">
						{test.data.timeline.map((step, index) => (
							<li key={`${index}-${step.step}`}>
								<StatusBadge status={step.status === "failure" ? "failed" : step.status} /> <strong>{step.step}</strong>{" "}
								{formatDuration(step.duration_ms)}
							</li>
						))}
					</ol>
					{test.data.results.hint ? <HintBox hint={test.data.results.hint as unknown as CompatibilityHint} /> : null}
				</div>
			) : null}
		</section>
	);
}

function HintBox({ hint, children }: { hint: CompatibilityHint; children?: ComponentChildren }) {
	return (
		<div class="hint-box" role="note">
			<p>
				<strong>Hint:</strong> set <code>{hint.setting}</code> to <code>{String(hint.value)}</code>
				{hint.profile ? (
					<>
						{" "}
						(or the profile <code>{hint.profile}</code>)
					</>
				) : null}
				.
			</p>
			<p>{hint.why}</p>
			{children ? <p>{children}</p> : null}
		</div>
	);
}
