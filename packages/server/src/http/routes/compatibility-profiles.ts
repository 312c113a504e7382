import { Hono } from "hono";
import * as v from "valibot";
import { COMPATIBILITY_PROFILES, effectiveCompatibility } from "../../service/partners/compatibility-profiles.ts";
import { compatibilitySwitchesSchema, compatibilitySwitchesView } from "../../service/views/partner-views.ts";
import type { AppEnv } from "../context.ts";
import { dataEnvelope, doc } from "../openapi.ts";

const profileSchema = v.object({
	name: v.string(),
	description: v.string(),
	switches: v.pipe(compatibilitySwitchesSchema, v.description("every switch as the profile sets it")),
	why: v.pipe(v.string(), v.description("the public source that supports the profile's switches")),
});

/** `GET /v1/compatibility-profiles`: the catalogue a partner's `compatibility.profile` names. */
export function compatibilityProfileRoutes() {
	return new Hono<AppEnv>().get(
		"/",
		doc({
			tags: ["Partners"],
			access: { permission: null, reach: "tenant" },
			summary: "List the compatibility profiles a partner can take",
			description:
				"A partner's `compatibility.profile` names one of these; the switches the partner sets itself win over the profile's. `default` is strict RFC. A profile sets a switch only where a public source shows the implementation needs it; `why` cites it.",
			responses: { 200: { description: "the profiles", schema: dataEnvelope(v.array(profileSchema)) } },
		}),
		(c) =>
			c.json({
				data: COMPATIBILITY_PROFILES.map((profile) => ({
					name: profile.name,
					description: profile.description,
					switches: compatibilitySwitchesView(effectiveCompatibility({ profile: profile.name })),
					why: profile.why,
				})),
			}),
	);
}
