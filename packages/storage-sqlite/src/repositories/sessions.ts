import type { SessionStore } from "@as2kit/core/store";
import { eq } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { sessions } from "../schema.ts";

export function createSessionStore(exec: Exec): SessionStore {
	return {
		create: (session) => exec((db) => void db.insert(sessions).values(session).run()),
		findByTokenHash: (tokenHash) =>
			exec((db) => db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)).get() ?? null),
		touch: (id, lastUsedAt) =>
			exec((db) => void db.update(sessions).set({ lastUsedAt }).where(eq(sessions.id, id)).run()),
		revoke: (id, revokedAt) =>
			exec((db) => void db.update(sessions).set({ revokedAt }).where(eq(sessions.id, id)).run()),
	};
}
