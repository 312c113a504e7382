/** Add a master partner: every tenant of the account inherits it at once. */
import { api } from "../../api.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Page } from "../../components/Page.tsx";
import { navigate } from "../../router.tsx";
import { PartnerForm } from "../partners/PartnerForm.tsx";
import { NEW_PARTNER } from "../partners/partner-form-values.ts";
import type { Partner } from "../partners/partner-types.ts";
import { masterPath, useAccountId } from "./use-account-id.ts";

export function NewMasterPartnerScreen() {
	const { accountId, error } = useAccountId();
	return (
		<Page title="Add a master partner" lead="Every tenant of the account inherits it; each may override its settings.">
			<ErrorNote error={error} />
			{accountId ? (
				<section class="card">
					<PartnerForm
						initial={null}
						defaults={NEW_PARTNER}
						submitLabel="Create master partner"
						send={async (body) => (await api.post<{ data: Partner }>(masterPath(accountId), body)).data}
						onDone={(partner) => navigate(`partners/master/${partner.id}`)}
						onCancel={() => navigate("partners/master")}
					/>
				</section>
			) : null}
		</Page>
	);
}
