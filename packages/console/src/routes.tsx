/**
 * Every screen of the signed-in console: a route pattern (relative to the base, `:name` for a
 * parameter) and the component that renders it. To add a screen, add its folder under
 * screens/ and one line here; the navigation lives in components/Nav.tsx.
 */
import type { FunctionComponent } from "preact";
import { ApiKeysScreen } from "./screens/api-keys/ApiKeysScreen.tsx";
import { CertificatesScreen } from "./screens/certificates/CertificatesScreen.tsx";
import { EpcisScreen } from "./screens/epcis/EpcisScreen.tsx";
import { MasterPartnerScreen } from "./screens/master-partners/MasterPartnerScreen.tsx";
import { MasterPartnersScreen } from "./screens/master-partners/MasterPartnersScreen.tsx";
import { NewMasterPartnerScreen } from "./screens/master-partners/NewMasterPartnerScreen.tsx";
import { MessageDetailScreen } from "./screens/messages/MessageDetailScreen.tsx";
import { MessagesScreen } from "./screens/messages/MessagesScreen.tsx";
import { SendMessageScreen } from "./screens/messages/SendMessageScreen.tsx";
import { OverviewScreen } from "./screens/overview/OverviewScreen.tsx";
import { NewPartnerScreen } from "./screens/partners/NewPartnerScreen.tsx";
import { PartnerScreen } from "./screens/partners/PartnerScreen.tsx";
import { PartnersScreen } from "./screens/partners/PartnersScreen.tsx";
import { WebhookDetailScreen } from "./screens/webhooks/WebhookDetailScreen.tsx";
import { WebhooksScreen } from "./screens/webhooks/WebhooksScreen.tsx";

export type RouteParams = Record<string, string>;

export const routes: { pattern: string; screen: FunctionComponent<{ params: RouteParams }> }[] = [
	{ pattern: "", screen: OverviewScreen },
	{ pattern: "messages", screen: MessagesScreen },
	{ pattern: "messages/new", screen: SendMessageScreen },
	{ pattern: "messages/:id", screen: MessageDetailScreen },
	{ pattern: "partners", screen: PartnersScreen },
	{ pattern: "partners/new", screen: NewPartnerScreen },
	{ pattern: "partners/master", screen: MasterPartnersScreen },
	{ pattern: "partners/master/new", screen: NewMasterPartnerScreen },
	{ pattern: "partners/master/:id", screen: MasterPartnerScreen },
	{ pattern: "partners/:id", screen: PartnerScreen },
	{ pattern: "certificates", screen: CertificatesScreen },
	{ pattern: "webhooks", screen: WebhooksScreen },
	{ pattern: "webhooks/:id", screen: WebhookDetailScreen },
	{ pattern: "api-keys", screen: ApiKeysScreen },
	{ pattern: "epcis", screen: EpcisScreen },
];
