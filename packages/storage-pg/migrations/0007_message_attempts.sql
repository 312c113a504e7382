CREATE TABLE "message_attempts" (
	"message_id" text NOT NULL,
	"number" integer NOT NULL,
	"tenant_id" text NOT NULL,
	"direction" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"url" text,
	"http_status" integer,
	"bytes_sent" bigint,
	"bytes_received" bigint,
	"outcome" text NOT NULL,
	"error_code" text,
	"error_message" text,
	"tls_version" text,
	"peer_certificate_sha256" text,
	"phases" json NOT NULL,
	"request" json,
	"response" json,
	"mdn" json,
	"wire_expires_at" timestamp (3) with time zone,
	CONSTRAINT "message_attempts_pk" PRIMARY KEY("message_id","number")
);
--> statement-breakpoint
CREATE INDEX "message_attempts_wire_expires_idx" ON "message_attempts" USING btree ("wire_expires_at");