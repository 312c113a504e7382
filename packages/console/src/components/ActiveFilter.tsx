/** The `active` filter of a list endpoint (partners, certificates): any, active or inactive. */
import { SelectField } from "./SelectField.tsx";

export function ActiveFilter(props: { value?: string | undefined; error?: string | undefined }) {
	return (
		<SelectField
			label="State"
			name="active"
			value={props.value ?? ""}
			error={props.error}
			options={[
				["", "Active and inactive"],
				["true", "Active"],
				["false", "Inactive"],
			]}
		/>
	);
}
