import { Page } from "../../components/Page.tsx";

export function SendMessageScreen() {
	return <Page title="Send a message" />;
}
