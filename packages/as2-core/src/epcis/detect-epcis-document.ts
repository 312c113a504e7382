import { rootOf } from "./read-document.ts";
import type { EpcisRootName, EpcisVersion } from "./types.ts";
import { bareDoctypeName } from "./xml/xml-text.ts";

const SNIFF = 8192;

/**
 * Sniffs the first few KB of a payload for an EPCIS root element: past an optional BOM,
 * XML declaration, comments, processing instructions, white space and one bare
 * `<!DOCTYPE name>` (GS1's own examples carry `<!DOCTYPE project>`), the first start tag
 * must be EPCISDocument or EPCISQueryDocument in an EPCIS 1.x/2.0 namespace (any prefix).
 * A cheap test for whether a message payload should be indexed; it proves nothing about
 * the rest of the document.
 *
 * @example
 * detectEpcisDocument(payload.subarray(0, 4096)); // { version: "2.0", root: "EPCISDocument" } or null
 */
export function detectEpcisDocument(
	prefix: Uint8Array | string,
): { version: EpcisVersion; root: EpcisRootName } | null {
	let text =
		typeof prefix === "string"
			? prefix.slice(0, SNIFF)
			: new TextDecoder("utf-8", { fatal: false }).decode(prefix.subarray(0, SNIFF));
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	let i = 0;
	let doctype = false;
	for (;;) {
		while (i < text.length && /[ \t\r\n]/.test(text[i]!)) i++;
		if (text.startsWith("<?", i)) {
			const end = text.indexOf("?>", i + 2);
			if (end < 0) return null;
			i = end + 2;
		} else if (text.startsWith("<!--", i)) {
			const end = text.indexOf("-->", i + 4);
			if (end < 0) return null;
			i = end + 3;
		} else if (!doctype && text.startsWith("<!DOCTYPE", i)) {
			// Any other DOCTYPE can declare entities: the reader refuses it, so nothing to index.
			const end = text.indexOf(">", i);
			if (end < 0 || bareDoctypeName(text.slice(i, end + 1)) === null) return null;
			doctype = true;
			i = end + 1;
		} else break;
	}
	const tag = /^<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(
		text.slice(i),
	);
	if (!tag) return null;
	const qname = tag[1]!;
	const colon = qname.indexOf(":");
	const prefixName = colon < 0 ? "" : qname.slice(0, colon);
	const local = colon < 0 ? qname : qname.slice(colon + 1);
	let ns: string | null = null;
	for (const m of tag[2]!.matchAll(/\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
		const name = m[1]!;
		if ((prefixName === "" && name === "xmlns") || name === `xmlns:${prefixName}`) ns = (m[2] ?? m[3] ?? "").trim();
	}
	return rootOf(ns, local);
}
