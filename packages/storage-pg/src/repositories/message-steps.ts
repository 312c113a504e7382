import { randomBytes } from "node:crypto";
import type {
	JobRecord,
	MessageRecord,
	MessageSteps,
	SettleStep,
	StepEvent,
	StepJob,
	SubmitStep,
} from "@as2kit/core/store";
import type { Runner } from "../connection.ts";
import { events, jobs, messageAttempts, messages } from "../schema.ts";
import type { TextRow } from "../undescribed-query.ts";
import { withSubject } from "./events.ts";
import { formattedId, insertWithNewId } from "./insert-with-new-id.ts";
import { jobId, toJob } from "./jobs.ts";
import { incrementRows } from "./limits.ts";
import { insertingState, movesState, UPDATING_STATE } from "./message-states.ts";
import { rawTable } from "./pg-raw-table.ts";

// A message's submission and settlement, each as ONE statement: data-modifying CTEs, without
// BEGIN and COMMIT (a single statement is atomic). Stop 36 measured the form: a message's
// storage work 1,377 → 784 µs of CPU, backend and client (docs/performance-storage.md, "One
// statement a step"). Each shape of step (how many events, jobs, counters; which patch) is one
// text, prepared once per connection (Runner.query).

const RAW_MESSAGES = rawTable(messages);
const RAW_EVENTS = rawTable(events);
const RAW_JOBS = rawTable(jobs);
const RAW_ATTEMPTS = rawTable(messageAttempts);
const NEW_MESSAGE = insertWithNewId(RAW_MESSAGES, "msg_");
const EVENT_OMIT = ["seq", "id"];
const JOB_OMIT = ["id"];

/**
 * What `SubmitStep.withId` is given for the message's id: the statement replaces it with the new
 * id in the events' and jobs' strings. Random per process and made of letters and digits (JSON
 * leaves them as they are), so no payload carries it, by chance or on purpose.
 */
const STAND_IN = `msgid${randomBytes(16).toString("hex")}`;
/** A value that may name the message: its stand-in replaced with the new message's id. */
const naming = (param: string, type: string) =>
	`replace(${param}::text, '${STAND_IN}', (select "id" from "m"))::${type}`;

/** Statement texts by shape: a handful in all (steps differ by their events, jobs and patch). */
const texts = new Map<string, string>();
const textOf = (shape: string, build: () => string) => {
	let text = texts.get(shape);
	if (text === undefined) {
		text = build();
		texts.set(shape, text);
	}
	return text;
};

/** Parameters in the order a text numbers them. */
class Params {
	readonly values: unknown[] = [];
	/** Adds `values`; the number of the first. */
	add(values: readonly unknown[]): number {
		const first = this.values.length + 1;
		this.values.push(...values);
		return first;
	}
}

/**
 * The events as the CTE "e", in the order given: their ids taken from the sequence in that
 * order (`nextval` in the select list runs after its sort) and inserted in it (so `seq` keeps
 * it), written only when "m" has a row; and the fan-out jobs of those whose account has an
 * active endpoint as "f" (EventStore.appendNewWithFanOut, one statement there too).
 */
function eventCtes(
	firsts: { sequence: number; events: number[]; fanOut: number },
	replaced?: (param: string, type: string) => string,
): string {
	const rows = firsts.events.map((first, i) => {
		const { values } = RAW_EVENTS.castSelect(
			EVENT_OMIT,
			first,
			replaced ? { data: replaced, subjectId: replaced } : {},
		);
		return `(${i + 1}, ${values})`;
	});
	const { names } = RAW_EVENTS.castSelect(EVENT_OMIT, 1);
	const listed = names
		.split(", ")
		.map((name) => `"x".${name}`)
		.join(", ");
	return `"e" as (insert into "events" ("id", ${names})
		select ${formattedId("evt_", `"x"."v"`)}, ${listed} from (
			select nextval($${firsts.sequence}::regclass) as "v", "r".* from (values ${rows.join(", ")}) as "r"("ord", ${names})
			where exists (select 1 from "m") order by "r"."ord") as "x"
		order by "x"."ord"
		returning "id", "account_id", "created_at", "seq"),
	"f" as (insert into "jobs" ("kind", "payload", "priority", "run_at", "attempts", "created_at")
		select $${firsts.fanOut}::text, json_build_object('eventId', "e"."id"), 0, $${firsts.fanOut + 1}::timestamptz, 0, "e"."created_at"
		from "e"
		where exists (select 1 from "webhook_endpoints" where "account_id" = "e"."account_id" and "active")
		order by "e"."seq"
		returning 1)`;
}

/** The events' parameters: the sequence, each event's columns, the fan-out job's kind and time. */
function addEvents(params: Params, list: readonly StepEvent[], sequence: string, fanOut: SubmitStep["fanOut"]) {
	return {
		sequence: params.add([sequence]),
		events: list.map((event) => params.add(RAW_EVENTS.toParams(withSubject({ ...event, id: "" }), EVENT_OMIT))),
		fanOut: params.add([fanOut.kind, jobs.runAt.mapToDriverValue(fanOut.runAt)]),
	};
}

/** A job of the submission as the CTE `"j<i>"`, returning its row; a keyed one skipped while its key is held. */
function jobCte(i: number, first: number, keyed: boolean): string {
	const { names, values } = RAW_JOBS.castSelect(JOB_OMIT, first, { payload: naming, key: naming });
	const conflict = keyed ? ` on conflict ("key") where "key" is not null do nothing` : "";
	return `"j${i}" as (insert into "jobs" (${names}) select ${values}${conflict} returning ${RAW_JOBS.columns})`;
}

function jobParams(job: StepJob, now: Date): unknown[] {
	return RAW_JOBS.toParams(
		{
			kind: job.kind,
			payload: job.payload,
			key: job.key ?? null,
			priority: job.priority ?? 0,
			runAt: job.runAt,
			// Written leased, as a claim would leave it (JobStore.enqueueClaimed).
			attempts: job.lease ? 1 : 0,
			lockedBy: job.lease?.workerId ?? null,
			lockedUntil: job.lease?.lockedUntil ?? null,
			createdAt: now,
		},
		JOB_OMIT,
	);
}

export function createMessageSteps(runner: Runner, ensureSequence: (prefix: string) => Promise<string>): MessageSteps {
	return {
		async submit(step: SubmitStep) {
			const { events: stepEvents, jobs: stepJobs } = step.withId(STAND_IN);
			const params = new Params();
			params.add(NEW_MESSAGE.params(step.message, await ensureSequence("msg_")));
			const counters = step.usage ? Object.entries(step.usage.by) : [];
			const usage = params.add(
				counters.flatMap(([metric, by]) => [step.usage!.accountId, step.usage!.period, metric, by]),
			);
			const eventFirsts =
				stepEvents.length > 0 ? addEvents(params, stepEvents, await ensureSequence("evt_"), step.fanOut) : null;
			const jobFirsts = stepJobs.map((job) => params.add(jobParams(job, step.message.createdAt)));
			const keyed = stepJobs.map((job) => job.key != null);
			const shape = `submit:${counters.length}:${stepEvents.length}:${keyed.map(Number).join("")}`;
			const text = textOf(shape, () => {
				const parts = [insertingState(NEW_MESSAGE.sql.replace(/ returning "id"$/, ""))];
				if (counters.length > 0) parts.push(`"u" as (${shift(incrementRows(counters.length), usage - 1)})`);
				if (eventFirsts) parts.push(eventCtes(eventFirsts, naming));
				parts.push(...jobFirsts.map((first, i) => jobCte(i, first, keyed[i]!)));
				const fanOut = eventFirsts ? `exists (select 1 from "f")` : "false";
				return stepJobs.length > 0
					? `with ${parts.join(",\n")}\nselect "m"."id", ${fanOut}, "j0".* from "m" left join "j0" on true`
					: `with ${parts.join(",\n")}\nselect "m"."id", ${fanOut} from "m"`;
			});
			const [row] = await runner.query(text, params.values, (columns: TextRow) => columns);
			return {
				id: row![0]!,
				fanOut: row![1] === "t",
				job: stepJobs.length > 0 && row![2] !== null ? toJob(RAW_JOBS.fromText(row!, 2)) : (null as JobRecord | null),
			};
		},
		async settle(step: SettleStep) {
			const params = new Params();
			params.add([step.id, [...step.from]]);
			const set = RAW_MESSAGES.setClause(step.patch, 3);
			params.add(set.params);
			const attempt = step.attempt ? params.add(RAW_ATTEMPTS.toParams(step.attempt)) : null;
			const complete = step.completeJob ? params.add([jobId(step.completeJob.id), step.completeJob.workerId]) : null;
			const eventFirsts =
				step.events.length > 0 ? addEvents(params, step.events, await ensureSequence("evt_"), step.fanOut) : null;
			const shape = `settle:${set.sql}:${attempt !== null}:${complete !== null}:${step.events.length}`;
			const text = textOf(shape, () => {
				const parts = [
					`"m" as (update "messages" set ${set.sql} where "id" = $1 and "status" = any($2::text[]) returning ${RAW_MESSAGES.columns})`,
				];
				if (movesState(step.patch)) parts.push(UPDATING_STATE);
				if (attempt !== null) {
					const { names, values } = RAW_ATTEMPTS.castSelect([], attempt);
					parts.push(`"a" as (insert into "message_attempts" (${names}) select ${values} from "m")`);
				}
				if (complete !== null)
					parts.push(
						`"c" as (delete from "jobs" where "id" = $${complete}::bigint and "locked_by" = $${complete + 1}::text and exists (select 1 from "m") returning "id")`,
					);
				if (eventFirsts) parts.push(eventCtes(eventFirsts));
				const completed = complete !== null ? `exists (select 1 from "c")` : "false";
				const fanOut = eventFirsts ? `exists (select 1 from "f")` : "false";
				return `with ${parts.join(",\n")}\nselect "m".*, ${completed}, ${fanOut} from "m"`;
			});
			const [row] = await runner.query(text, params.values, (columns: TextRow) => columns);
			if (!row) return { moved: null, jobCompleted: false, fanOut: false };
			const width = RAW_MESSAGES.width;
			return {
				moved: RAW_MESSAGES.fromText(row) as MessageRecord,
				jobCompleted: row[width] === "t",
				fanOut: row[width + 1] === "t",
			};
		},
	};
}

/** A statement's parameters `$n` renumbered `$n + by`, to sit after others in one statement. */
function shift(text: string, by: number): string {
	return by === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
}
