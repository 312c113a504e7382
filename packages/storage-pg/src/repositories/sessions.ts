import type { SessionStore } from "@as2kit/core/store";
import { eq } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { sessions } from "../schema.ts";

export function createSessionStore(runner: Runner): SessionStore {
	return {
		create: async (session) => {
			await runner.run((db) => db.insert(sessions).values(session));
		},
		findByTokenHash: (tokenHash) =>
			runner
				.run((db) => db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)))
				.then(([row]) => row ?? null),
		touch: async (id, lastUsedAt) => {
			await runner.run((db) => db.update(sessions).set({ lastUsedAt }).where(eq(sessions.id, id)));
		},
		revoke: async (id, revokedAt) => {
			await runner.run((db) => db.update(sessions).set({ revokedAt }).where(eq(sessions.id, id)));
		},
	};
}
