import { categoryOf, EVENT_CATEGORIES, isEventKind } from "./event-kinds.ts";

/**
 * What an endpoint may subscribe to: an event kind of the catalog (`message.sent`), every
 * kind of a category (`message.*`, `billing.*`), or everything (`*`). Unknown names are
 * refused rather than silently never matching.
 */
export function isEventPattern(pattern: string): boolean {
	if (pattern === "*") return true;
	if (pattern.endsWith(".*")) return EVENT_CATEGORIES.includes(pattern.slice(0, -2));
	return isEventKind(pattern);
}

/** Whether an endpoint subscribed to `patterns` receives `kind`. */
export function matchesEvent(patterns: readonly string[], kind: string): boolean {
	return patterns.some((p) => p === "*" || p === kind || (p.endsWith(".*") && p.slice(0, -2) === categoryOf(kind)));
}
