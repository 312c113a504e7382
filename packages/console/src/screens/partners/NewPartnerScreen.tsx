/** Add a tenant partner; its certificates are uploaded on the partner's page, where this leads. */
import { api } from "../../api.ts";
import { Page } from "../../components/Page.tsx";
import { navigate } from "../../router.tsx";
import { PartnerForm } from "./PartnerForm.tsx";
import { NEW_PARTNER } from "./partner-form-values.ts";
import type { Partner } from "./partner-types.ts";

export function NewPartnerScreen() {
	return (
		<Page title="Add a partner" lead="Then upload the partner's certificate on its page, and validate it.">
			<section class="card">
				<PartnerForm
					initial={null}
					defaults={NEW_PARTNER}
					submitLabel="Create partner"
					send={async (body) => (await api.post<{ data: Partner }>("/v1/partners", body)).data}
					onDone={(partner) => navigate(`partners/${partner.id}`)}
					onCancel={() => navigate("partners")}
				/>
			</section>
		</Page>
	);
}
