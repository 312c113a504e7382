/**
 * Upload a partner's certificate: PEM, DER or a PKCS#7 bundle (the API reads all three). It is
 * active at once; with the old one still active both are used during a rollover.
 */
import { useRef, useState } from "preact/hooks";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { upload } from "../../upload.ts";
import { useApiForm } from "../../use-api-form.ts";

export function CertificateUpload({ partnerId, onDone }: { partnerId: string; onDone: () => void }) {
	const [progress, setProgress] = useState<number | null>(null);
	const element = useRef<HTMLFormElement>(null);
	const form = useApiForm(
		(data) =>
			upload(`/v1/partners/${encodeURIComponent(partnerId)}/certificates`, data, setProgress).finally(() =>
				setProgress(null),
			),
		() => {
			element.current?.reset();
			onDone();
		},
	);
	return (
		<form ref={element} class="form" aria-label="Upload a certificate" onSubmit={form.submit} noValidate>
			<div class="form-row top">
				<Field label="Certificate name" name="name" required error={form.error?.field("name")} />
				<SelectField
					label="Usage"
					name="usage"
					error={form.error?.field("usage")}
					options={[
						["both", "Signing and encryption"],
						["signing", "Signing only"],
						["encryption", "Encryption only"],
					]}
				/>
				<Field
					label="Certificate file"
					name="certificate"
					type="file"
					accept=".pem,.crt,.cer,.der,.p7b,.p7c,application/x-x509-ca-cert,application/pkix-cert"
					required
					error={form.error?.field("certificate")}
					hint="PEM, DER or PKCS#7 (.p7b) as the partner sent it."
				/>
			</div>
			{progress !== null ? <progress value={progress} max={1} aria-label="Upload progress" /> : null}
			<FormError error={form.error} fields={["name", "usage", "certificate"]} />
			<div class="page-actions">
				<button type="submit" class="button primary" disabled={form.busy}>
					Upload certificate
				</button>
			</div>
		</form>
	);
}
