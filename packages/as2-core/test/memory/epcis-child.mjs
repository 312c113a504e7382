// Child process of epcis-memory.test.ts: validates a generated EPCIS document (all three rules)
// or a hostile one, streamed and never held whole, and reports peak RSS growth.
import { generateEpcisDocument, hugeAttributeDocument } from "../../bench/epcis-generate.mjs";
import { validateEpcis } from "../../dist/index.js";

const [kind, version, sizeText] = process.argv.slice(2);
const size = Number(sizeText);
const stats = { events: 0, bytes: 0 };
const source = kind === "attribute" ? hugeAttributeDocument(size, stats) : generateEpcisDocument(version, size, stats);

global.gc?.();
const baseline = process.memoryUsage().rss;
const result = await validateEpcis(source, { now: new Date("2024-01-01T00:00:00Z") });
const peak = process.resourceUsage().maxRSS * 1024;
console.log(
	JSON.stringify({
		bytesRead: stats.bytes,
		eventCount: result.eventCount,
		valid: result.valid,
		results: result.results,
		codes: [...new Set(result.errors.map((e) => e.code))],
		peakGrowthBytes: peak - baseline,
	}),
);
