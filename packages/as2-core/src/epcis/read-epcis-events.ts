import { As2Error, toAs2Error } from "../errors/index.ts";
import { resolveLimits } from "./limits.ts";
import { normalizeEvent } from "./normalize-event.ts";
import { readDocument } from "./read-document.ts";
import type { EpcisEvent, EpcisInput, ReadEpcisEventsOptions } from "./types.ts";
import { XmlSyntaxError } from "./xml/xml-syntax-error.ts";

/**
 * The events of an EPCIS 1.2 or 2.0 XML document (EPCISDocument, or the EventList of an
 * EPCISQueryDocument's QueryResults), streamed one at a time in the EPCIS 2.0 JSON-LD shape
 * with canonical CBV values: only the current event is held in memory.
 *
 * Throws As2Error EPCIS_PARSE_ERROR (`details`: code, line, column) when the input is not
 * well-formed, is hostile, breaks a limit or is not an EPCIS document; events before the
 * failure have been yielded. It checks no schema or rule: run {@link validateEpcis} for that.
 *
 * @example
 * for await (const event of readEpcisEvents(request.body)) {
 *   await store.insert({ ...event, sourceMessageId });
 * }
 */
export async function* readEpcisEvents(
	input: EpcisInput,
	options: ReadEpcisEventsOptions = {},
): AsyncGenerator<EpcisEvent> {
	const limits = resolveLimits(options.limits);
	try {
		for await (const item of readDocument(input, limits)) {
			if (item.kind === "root" && item.version === null) {
				throw new As2Error(
					"EPCIS_PARSE_ERROR",
					`not an EPCIS document: root element {${item.tag.ns ?? ""}}${item.tag.local}`,
					{
						details: { code: "EPCIS_NOT_A_DOCUMENT", line: item.tag.line, column: item.tag.column },
					},
				);
			}
			if (item.kind === "element") for (const located of item.events) yield normalizeEvent(located.element);
		}
	} catch (error) {
		if (error instanceof XmlSyntaxError) {
			throw new As2Error("EPCIS_PARSE_ERROR", error.message, {
				details: { code: error.code, line: error.line, column: error.column },
				cause: error,
			});
		}
		throw toAs2Error(error, "INTERNAL_ERROR", "reading EPCIS events failed");
	}
}
