/** Register a user with an account and its first tenant (`POST /auth/register`). */
import { api } from "../../api.ts";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { Link } from "../../router.tsx";
import { useApiForm } from "../../use-api-form.ts";
import { AuthFrame } from "./AuthFrame.tsx";

const FIELDS = ["name", "email", "password", "password_confirmation", "registration_code"];

export function RegisterScreen({ onSignedIn }: { onSignedIn: (token: string) => void }) {
	const { error, busy, submit } = useApiForm(
		(form) => {
			const code = String(form.get("registration_code") ?? "");
			return api.post<{ token: string }>("/auth/register", {
				name: form.get("name"),
				email: form.get("email"),
				password: form.get("password"),
				password_confirmation: form.get("password_confirmation"),
				...(code ? { registration_code: code } : {}),
			});
		},
		(answer) => onSignedIn(answer.token),
	);
	return (
		<AuthFrame title="Create an account">
			<form class="form" onSubmit={submit} noValidate>
				<Field label="Name" name="name" autocomplete="name" required error={error?.field("name")} />
				<Field label="Email" name="email" type="email" autocomplete="email" required error={error?.field("email")} />
				<Field
					label="Password"
					name="password"
					type="password"
					autocomplete="new-password"
					hint="At least 8 characters."
					required
					error={error?.field("password")}
				/>
				<Field
					label="Confirm password"
					name="password_confirmation"
					type="password"
					autocomplete="new-password"
					required
					error={error?.field("password_confirmation")}
				/>
				<Field
					label="Registration code"
					name="registration_code"
					hint="Only if this server asks for one."
					error={error?.field("registration_code")}
				/>
				<FormError error={error} fields={FIELDS} />
				<button type="submit" class="button primary wide" disabled={busy}>
					Create account
				</button>
			</form>
			<p class="auth-switch">
				Already have an account? <Link to="">Sign in</Link>
			</p>
		</AuthFrame>
	);
}
