/**
 * The console's root: signed out it shows sign in / register; signed in it loads `/auth/me`,
 * then renders the route's screen inside the layout.
 */
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, api, onUnauthorized } from "./api.ts";
import { AuthContext, type AuthState, type Me } from "./auth-state.tsx";
import { Layout } from "./components/Layout.tsx";
import { NotFound } from "./components/NotFound.tsx";
import { ScreenErrorBoundary } from "./components/ScreenErrorBoundary.tsx";
import { match, navigate, useLocation } from "./router.tsx";
import { routes } from "./routes.tsx";
import { AuthFrame } from "./screens/auth/AuthFrame.tsx";
import { RegisterScreen } from "./screens/auth/RegisterScreen.tsx";
import { SignInScreen } from "./screens/auth/SignInScreen.tsx";
import { session } from "./session.ts";

export function App() {
	const [token, setToken] = useState(session.token());
	const signedIn = useCallback((newToken: string) => {
		session.signIn(newToken);
		setToken(newToken);
		navigate("", { replace: true });
	}, []);
	const signedOut = useCallback(() => {
		session.clear();
		setToken(null);
	}, []);
	useEffect(() => onUnauthorized(signedOut), [signedOut]);
	const location = useLocation();
	if (!token) {
		return location.path === "register" ? (
			<RegisterScreen onSignedIn={signedIn} />
		) : (
			<SignInScreen onSignedIn={signedIn} />
		);
	}
	return <SignedIn key={token} onSignedOut={signedOut} />;
}

function SignedIn({ onSignedOut }: { onSignedOut: () => void }) {
	const [me, setMe] = useState<Me | null>(null);
	const [failure, setFailure] = useState<string | null>(null);
	const [tenantId, setTenantId] = useState(session.tenantId());
	useEffect(() => {
		api
			.get<Me>("/auth/me")
			.then(setMe)
			.catch((error: unknown) => setFailure(error instanceof ApiError ? error.message : String(error)));
	}, []);
	const state = useMemo<AuthState | null>(() => {
		if (!me) return null;
		return {
			me,
			tenant: me.tenants.find((tenant) => tenant.id === tenantId) ?? me.tenants[0] ?? null,
			chooseTenant(id) {
				session.chooseTenant(id);
				setTenantId(id);
			},
			async signOut() {
				await api.post("/auth/logout").catch(() => undefined);
				onSignedOut();
			},
		};
	}, [me, tenantId, onSignedOut]);
	const location = useLocation();
	if (failure) {
		return (
			<AuthFrame title="Your account could not be loaded">
				<p class="error-note" role="alert">
					{failure}
				</p>
				<button type="button" class="button primary wide" onClick={() => window.location.reload()}>
					Try again
				</button>
				<button type="button" class="button ghost wide" onClick={onSignedOut}>
					Sign out
				</button>
			</AuthFrame>
		);
	}
	if (!state) return <p aria-busy="true">Loading…</p>;
	let screen = <NotFound />;
	for (const route of routes) {
		const params = match(route.pattern, location.path);
		if (params) {
			const Screen = route.screen;
			screen = <Screen params={params} />;
			break;
		}
	}
	return (
		<AuthContext.Provider value={state}>
			{/* Keyed by tenant: switching tenants reloads every screen's data. */}
			<Layout key={state.tenant?.id ?? "none"}>
				<ScreenErrorBoundary key={location.path}>{screen}</ScreenErrorBoundary>
			</Layout>
		</AuthContext.Provider>
	);
}
