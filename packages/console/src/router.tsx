/**
 * A small history-API router. Paths are relative to the console's base, the folder above the
 * bundle's own URL (`/console/` when the host serves it): the route `messages/abc` is the URL
 * `/console/messages/abc`. Links are plain `<a href>` elements (keyboard and middle-click work);
 * clicks on them are taken over without a page load.
 */
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { BASE_URL } from "./base.ts";

const basePath = (): string => BASE_URL.pathname;

/** The current route: the path below the base without leading or trailing slash, and the query. */
export interface Location {
	path: string;
	query: URLSearchParams;
}

function current(): Location {
	const base = basePath();
	const { pathname, search } = window.location;
	const inside = pathname.startsWith(base) ? pathname.slice(base.length) : pathname.replace(/^\/+/, "");
	return { path: inside.replace(/\/+$/, ""), query: new URLSearchParams(search) };
}

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => {
	for (const listener of listeners) listener();
});

/** The href of a route (`href("messages/abc")`), for links and navigate(). */
export function href(path: string, query?: Record<string, string | undefined>): string {
	const search = new URLSearchParams();
	for (const [key, value] of Object.entries(query ?? {})) if (value) search.set(key, value);
	const suffix = search.size > 0 ? `?${search}` : "";
	return `${basePath()}${path.replace(/^\/+/, "")}${suffix}`;
}

export function navigate(
	path: string,
	options: { query?: Record<string, string | undefined>; replace?: boolean } = {},
) {
	const target = href(path, options.query);
	if (options.replace) history.replaceState(null, "", target);
	else history.pushState(null, "", target);
	for (const listener of listeners) listener();
}

export function useLocation(): Location {
	const [location, setLocation] = useState(current);
	useEffect(() => {
		const update = () => setLocation(current());
		listeners.add(update);
		return () => listeners.delete(update);
	}, []);
	return location;
}

type LinkProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, "href"> & {
	to: string;
	query?: Record<string, string | undefined>;
	children: ComponentChildren;
};

export function Link({ to, query, children, ...rest }: LinkProps) {
	const onClick = (event: MouseEvent) => {
		if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
		event.preventDefault();
		navigate(to, { query });
	};
	return (
		<a {...rest} href={href(to, query)} onClick={onClick}>
			{children}
		</a>
	);
}

/** Matches `messages/:id` against a path; the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
	const want = pattern.split("/");
	const have = path.split("/");
	if (want.length !== have.length) return null;
	const params: Record<string, string> = {};
	for (const [index, part] of want.entries()) {
		const actual = have[index] ?? "";
		if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(actual);
		else if (part !== actual) return null;
	}
	return params;
}
