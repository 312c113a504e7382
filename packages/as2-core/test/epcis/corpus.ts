import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { EpcisRule } from "../../src/epcis/index.ts";

const DIR = fileURLToPath(new URL("../fixtures/epcis/", import.meta.url));

export interface CorpusExpectation {
	version: "1.2" | "2.0" | null;
	eventCount: number;
	results: Record<EpcisRule, "passed" | "failed">;
	/** `rule:CODE` of every error expected, and of every warning. */
	errors: string[];
	warnings: string[];
}

/** The test corpus (fixtures/epcis/*.xml) and the expected result per rule from manifest.json. */
export const MANIFEST = JSON.parse(readFileSync(`${DIR}manifest.json`, "utf8")) as {
	now: string;
	documents: Record<string, CorpusExpectation>;
};

export const CORPUS_FILES: string[] = readdirSync(DIR)
	.filter((f) => f.endsWith(".xml"))
	.sort();

export const readCorpus = (name: string): string => readFileSync(`${DIR}${name}`, "utf8");
