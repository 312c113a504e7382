import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const XSD_DIR = fileURLToPath(new URL("../fixtures/epcis-xsd/", import.meta.url));

/** Entry points of the GS1 schemas copied into the repository. */
export const XSD = {
	"1.2": join(XSD_DIR, "1.2", "EPCglobal-epcis-1_2.xsd"),
	"2.0": join(XSD_DIR, "2.0", "EPCglobal-epcis-2_0.xsd"),
	"query-1.2": join(XSD_DIR, "1.2", "EPCglobal-epcis-query-1_2.xsd"),
	"query-2.0": join(XSD_DIR, "2.0", "EPCglobal-epcis-query-2_0.xsd"),
} as const;

let ready = false;

/**
 * xmllint is the independent judge of schema compliance (DESIGN.md, Testing against the real
 * world). Tests must run for real, never skip: install libxml2-utils when it is missing.
 */
export function ensureXmllint(): void {
	if (ready) return;
	if (spawnSync("sh", ["-c", "command -v xmllint"]).status !== 0) {
		execFileSync("sh", ["-c", "apt-get update && apt-get install -y libxml2-utils"], { stdio: "ignore" });
	}
	ready = true;
}

/** `xmllint --noout --schema` verdicts for several documents in one run. */
export function xmllintValidates(xsd: string, documents: readonly string[]): boolean[] {
	ensureXmllint();
	const dir = mkdtempSync(join(tmpdir(), "as2kit-xmllint-"));
	try {
		const files = documents.map((doc, i) => {
			const file = join(dir, `${i}.xml`);
			writeFileSync(file, doc);
			return file;
		});
		const run = spawnSync("xmllint", ["--noout", "--nonet", "--schema", xsd, ...files], {
			encoding: "utf8",
			maxBuffer: 1 << 28,
		});
		if (run.error) throw run.error;
		const ok = new Set(
			run.stderr
				.split("\n")
				.filter((l) => l.endsWith(" validates"))
				.map((l) => l.slice(0, -" validates".length)),
		);
		return files.map((f) => ok.has(f));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
