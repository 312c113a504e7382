/** Account users reach several tenants (`GET /auth/me`): requests act for the chosen one (`X-Tenant-ID`). */
import { useAuth } from "../auth-state.tsx";

export function TenantSwitcher() {
	const auth = useAuth();
	if (auth.me.tenants.length < 2) return <span class="tenant-name">{auth.tenant?.name}</span>;
	return (
		<label class="inline-field">
			<span>Tenant</span>
			<select value={auth.tenant?.id} onChange={(event) => auth.chooseTenant(event.currentTarget.value)}>
				{auth.me.tenants.map((tenant) => (
					<option key={tenant.id} value={tenant.id}>
						{tenant.name}
					</option>
				))}
			</select>
		</label>
	);
}
