import { ComingSoon } from "../ComingSoon.tsx";

export function ApiKeysScreen() {
	return <ComingSoon title="API keys" what="create and revoke API keys" />;
}
