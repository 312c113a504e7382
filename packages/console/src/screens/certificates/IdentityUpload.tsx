/**
 * A new identity for this tenant (decisions.md, Identity certificate of a tenant): a PKCS#12
 * file with its password, or a PEM certificate with its private key. It is active at once; the
 * old one stays active too until deactivated, so partners can switch over (rollover).
 */
import { useRef, useState } from "preact/hooks";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { upload } from "../../upload.ts";
import { useApiForm } from "../../use-api-form.ts";

const FIELDS = ["name", "usage", "pkcs12", "password", "certificate", "private_key"];

export function IdentityUpload({ onDone }: { onDone: () => void }) {
	const [format, setFormat] = useState<"pkcs12" | "pem">("pkcs12");
	const [progress, setProgress] = useState<number | null>(null);
	const element = useRef<HTMLFormElement>(null);
	const form = useApiForm(
		(data) => {
			data.set("type", "identity");
			// An empty file input still sends a part: leave out what this format does not use.
			for (const name of format === "pkcs12" ? ["certificate", "private_key"] : ["pkcs12"]) data.delete(name);
			if (data.get("password") === "") data.delete("password");
			return upload("/v1/certificates", data, setProgress).finally(() => setProgress(null));
		},
		() => {
			element.current?.reset();
			onDone();
		},
	);
	const error = (name: string) => form.error?.field(name);
	return (
		<form ref={element} class="form" aria-label="Upload a new identity" onSubmit={form.submit} noValidate>
			<fieldset class="segmented">
				<legend class="visually-hidden">Format</legend>
				<button
					type="button"
					class="button ghost"
					aria-pressed={format === "pkcs12" ? "true" : "false"}
					onClick={() => setFormat("pkcs12")}
				>
					PKCS#12 file
				</button>
				<button
					type="button"
					class="button ghost"
					aria-pressed={format === "pem" ? "true" : "false"}
					onClick={() => setFormat("pem")}
				>
					PEM certificate and key
				</button>
			</fieldset>
			<div class="form-row top">
				<Field label="Identity name" name="name" required error={error("name")} />
				<SelectField
					label="Usage"
					name="usage"
					error={error("usage")}
					options={[
						["both", "Signing and decryption"],
						["signing", "Signing only"],
						["encryption", "Decryption only"],
					]}
				/>
			</div>
			<div class="form-row top">
				{format === "pkcs12" ? (
					<Field
						label="PKCS#12 file"
						name="pkcs12"
						type="file"
						accept=".p12,.pfx,application/x-pkcs12"
						error={error("pkcs12")}
					/>
				) : (
					<>
						<Field
							label="Certificate (PEM)"
							name="certificate"
							type="file"
							accept=".pem,.crt,.cer"
							error={error("certificate")}
						/>
						<Field
							label="Private key (PEM)"
							name="private_key"
							type="file"
							accept=".pem,.key"
							error={error("private_key")}
						/>
					</>
				)}
				<Field
					label={format === "pkcs12" ? "Password" : "Key password"}
					name="password"
					type="password"
					autoComplete="off"
					error={error("password")}
					hint={format === "pem" ? "Only for an encrypted key." : undefined}
				/>
			</div>
			{progress !== null ? <progress value={progress} max={1} aria-label="Upload progress" /> : null}
			<FormError error={form.error} fields={FIELDS} />
			<div class="page-actions">
				<button type="submit" class="button primary" disabled={form.busy}>
					Upload identity
				</button>
			</div>
		</form>
	);
}
