/**
 * Who is signed in: the user and the tenants this credential reaches (`GET /auth/me`), shared
 * through a context so the header's tenant switcher and any screen read the same answer.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export interface MemberTenant {
	id: string;
	name: string;
	role?: string;
	account_id?: string;
	pricing_tier?: string;
	[key: string]: unknown;
}

export interface Me {
	user: { id: string; name: string; email: string } | null;
	tenants: MemberTenant[];
}

export interface AuthState {
	me: Me;
	/** The tenant requests act for: the chosen one, else the first the API lists. */
	tenant: MemberTenant | null;
	chooseTenant(id: string): void;
	signOut(): Promise<void>;
}

export const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
	const state = useContext(AuthContext);
	if (!state) throw new Error("useAuth outside the signed-in app");
	return state;
}
