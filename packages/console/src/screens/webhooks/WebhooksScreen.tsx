import { ComingSoon } from "../ComingSoon.tsx";

export function WebhooksScreen() {
	return <ComingSoon title="Webhooks" what="manage webhook endpoints and deliveries" />;
}
