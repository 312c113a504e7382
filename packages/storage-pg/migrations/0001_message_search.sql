-- GET /v1/messages?search=: a case-insensitive substring of the subject or the AS2 Message-ID
-- (repositories/message-list.ts). Trigram GIN indexes answer ILIKE '%term%' for terms of three
-- characters or more; pg_trgm is a trusted extension (PostgreSQL 13+), so the database owner
-- may create it. drizzle does not model operator classes of an extension, hence plain SQL.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_subject_trgm_idx" ON "messages" USING gin ("subject" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_message_id_trgm_idx" ON "messages" USING gin ("message_id" gin_trgm_ops);
