ALTER TABLE "events" ADD COLUMN "subject_id" text;--> statement-breakpoint
CREATE INDEX "events_subject_seq_idx" ON "events" USING btree ("subject_id","seq");--> statement-breakpoint
UPDATE "events" SET "subject_id" = "data"->>'id' WHERE json_typeof("data"->'id') = 'string';
