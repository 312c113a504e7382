/**
 * The session token and chosen tenant live in sessionStorage: they survive a reload in this
 * tab, are gone when the tab closes, and are not shared with other tabs (README, "Where the
 * token lives"). Never in localStorage, never in a URL.
 */
const TOKEN = "as2kit.token";
const TENANT = "as2kit.tenant";

export const session = {
	token: (): string | null => sessionStorage.getItem(TOKEN),
	tenantId: (): string | null => sessionStorage.getItem(TENANT),
	signIn(token: string): void {
		sessionStorage.setItem(TOKEN, token);
		sessionStorage.removeItem(TENANT);
	},
	chooseTenant(tenantId: string | null): void {
		if (tenantId) sessionStorage.setItem(TENANT, tenantId);
		else sessionStorage.removeItem(TENANT);
	},
	clear(): void {
		sessionStorage.removeItem(TOKEN);
		sessionStorage.removeItem(TENANT);
	},
};
