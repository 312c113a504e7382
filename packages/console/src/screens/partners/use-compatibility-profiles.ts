/** `GET /v1/compatibility-profiles`: the profiles a partner can take, for the form's picker. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { CompatibilityProfile } from "./partner-types.ts";

export function useCompatibilityProfiles(): CompatibilityProfile[] {
	const [profiles, setProfiles] = useState<CompatibilityProfile[]>([]);
	useEffect(() => {
		api
			.get<{ data: CompatibilityProfile[] }>("/v1/compatibility-profiles")
			.then((answer) => setProfiles(answer.data))
			.catch(() => setProfiles([]));
	}, []);
	return profiles;
}
