-- A job's insert and its removal wrote these two indexes on every message, and no query reads them:
-- claims walk jobs_claim_idx (unary + keeps them off these two), a key finds its job by
-- jobs_key_unique, and depth and list (metrics, admin) scan the table of jobs still to run.
DROP INDEX `jobs_due_idx`;--> statement-breakpoint
DROP INDEX `jobs_kind_due_idx`;