-- The columns a move changes, in a table of their own with their filters' indexes, so that
-- `messages` holds no index on them and its moves are HOT (schema.ts, message_states).
CREATE TABLE "message_states" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"status" text NOT NULL,
	"mdn_status" text NOT NULL,
	"mdn_deadline" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
-- Every stored message, before the indexes (one build each rather than an insert per row).
INSERT INTO "message_states" ("id", "tenant_id", "partner_id", "status", "mdn_status", "mdn_deadline", "created_at")
	SELECT "id", "tenant_id", "partner_id", "status", "mdn_status", "mdn_deadline", "created_at" FROM "messages";--> statement-breakpoint
DROP INDEX "messages_tenant_status_idx";--> statement-breakpoint
DROP INDEX "messages_tenant_partner_status_idx";--> statement-breakpoint
DROP INDEX "messages_tenant_mdn_status_idx";--> statement-breakpoint
DROP INDEX "messages_mdn_deadline_idx";--> statement-breakpoint
CREATE INDEX "message_states_tenant_status_idx" ON "message_states" USING btree ("tenant_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "message_states_tenant_partner_status_idx" ON "message_states" USING btree ("tenant_id","partner_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "message_states_tenant_mdn_status_idx" ON "message_states" USING btree ("tenant_id","mdn_status","created_at","id");--> statement-breakpoint
CREATE INDEX "message_states_mdn_deadline_idx" ON "message_states" USING btree ("mdn_deadline") WHERE "message_states"."mdn_status" = 'pending' AND "message_states"."status" = 'sent';--> statement-breakpoint
-- Room on each page for a moved row's new version: a HOT update needs it on the same page
-- (70, stop 32's measurement; pages written from now on, the existing ones as they are rewritten).
ALTER TABLE "messages" SET (fillfactor = 70);
