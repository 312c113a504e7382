/** Sign in with email and password (`POST /auth/login`); the session token goes to sessionStorage. */
import { api } from "../../api.ts";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { Link } from "../../router.tsx";
import { useApiForm } from "../../use-api-form.ts";
import { AuthFrame } from "./AuthFrame.tsx";

export function SignInScreen({ onSignedIn }: { onSignedIn: (token: string) => void }) {
	const { error, busy, submit } = useApiForm(
		(form) => api.post<{ token: string }>("/auth/login", { email: form.get("email"), password: form.get("password") }),
		(answer) => onSignedIn(answer.token),
	);
	return (
		<AuthFrame title="Sign in">
			<form class="form" onSubmit={submit} noValidate>
				<Field label="Email" name="email" type="email" autocomplete="username" required error={error?.field("email")} />
				<Field
					label="Password"
					name="password"
					type="password"
					autocomplete="current-password"
					required
					error={error?.field("password")}
				/>
				<FormError error={error} fields={["email", "password"]} />
				<button type="submit" class="button primary wide" disabled={busy}>
					Sign in
				</button>
			</form>
			<p class="auth-switch">
				New to as2kit? <Link to="register">Create an account</Link>
			</p>
		</AuthFrame>
	);
}
