import { ComingSoon } from "../ComingSoon.tsx";

export function CertificatesScreen() {
	return <ComingSoon title="Certificates" what="manage the identity and partner certificates" />;
}
