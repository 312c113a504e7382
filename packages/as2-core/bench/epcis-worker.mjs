// Child of epcis-validate.mjs: validates one EPCIS file, streamed from disk, with all three
// rules, and reports events, seconds and peak RSS of this process.
import { createReadStream } from "node:fs";
import { validateEpcis } from "../dist/index.js";

const [file] = process.argv.slice(2);
const started = process.hrtime.bigint();
const result = await validateEpcis(createReadStream(file, { highWaterMark: 64 * 1024 }), {
	now: new Date("2024-01-01T00:00:00Z"),
});
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
	JSON.stringify({
		events: result.eventCount,
		seconds,
		maxRss: process.resourceUsage().maxRSS / 1024,
		schema: result.results.schema_compliance,
		business: result.results.business_rules,
	}),
);
