/**
 * Light and dark follow `prefers-color-scheme`; the header's toggle overrides it for this
 * browser (a display preference, not a secret, so localStorage is fine here).
 */
const KEY = "as2kit.theme";
export type Theme = "light" | "dark";

export function applyStoredTheme(): void {
	const stored = localStorage.getItem(KEY);
	if (stored === "light" || stored === "dark") document.documentElement.dataset.theme = stored;
}

export function currentTheme(): Theme {
	const chosen = document.documentElement.dataset.theme;
	if (chosen === "light" || chosen === "dark") return chosen;
	return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function setTheme(theme: Theme): void {
	localStorage.setItem(KEY, theme);
	document.documentElement.dataset.theme = theme;
}
