-- The jobs' key unique over keyed jobs alone (stop 35, docs/performance-storage.md): a keyless
-- job (a message's send, a fan-out) writes no entry of the key's index, and its insert needs no
-- `on conflict` (repositories/jobs.ts). Completed jobs are deleted, so the build is a small one.
ALTER TABLE "jobs" DROP CONSTRAINT "jobs_key_unique";--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_key_unique" ON "jobs" USING btree ("key") WHERE "jobs"."key" is not null;
