/** EPCIS: validate a document against the GS1 rules, and query the events of the tenant's messages. */
import { Page } from "../../components/Page.tsx";
import { QueryEvents } from "./QueryEvents.tsx";
import { ValidateDocument } from "./ValidateDocument.tsx";

export function EpcisScreen() {
	return (
		<Page
			title="EPCIS"
			lead="Check an EPCIS document before you send it, and search the supply-chain events your messages carried."
		>
			<ValidateDocument />
			<QueryEvents />
		</Page>
	);
}
