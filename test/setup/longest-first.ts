/**
 * vitest sequencer: the longest test files first, whatever their project, so that a run on a
 * loaded 2-core machine does not end with one long file on one worker while the others idle.
 *
 * vitest's own order runs the projects one after the other by name and, within a project, the
 * longest first only from the results cache of an earlier run: a fresh clone (CI) has none, and
 * ran in glob order, a project's 36 s file last. Here a file's expected
 * seconds come from that cache when it has them, else from test/setup/file-weights.json (wall
 * seconds of a full run: `node test/setup/file-weights.mjs <AS2KIT_TEST_CPU_LOG file>`); a file
 * in neither counts 0 and keeps vitest's order among its equals.
 *
 * Files of a project that reuses workers (`isolate: false`) stay together: vitest's pool keeps a
 * worker only while the next queued file is of the same project, and each new worker imports
 * the sources again. Those projects run after the isolated files, the longer project first:
 * their many short files fill the workers at the end.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const WEIGHTS: Record<string, number> = JSON.parse(
	readFileSync(new URL("./file-weights.json", import.meta.url), "utf8"),
);

export default class LongestFirst extends BaseSequencer {
	override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		// vitest's order first: among files of equal weight (0: unknown), it stands.
		const ordered = await super.sort(files);
		const seconds = new Map(ordered.map((spec) => [spec, this.expectedSeconds(spec)]));
		const longestFirst = (specs: TestSpecification[]) => specs.toSorted((a, b) => seconds.get(b)! - seconds.get(a)!);
		const total = (specs: TestSpecification[]) => specs.reduce((sum, spec) => sum + seconds.get(spec)!, 0);

		const isolated = ordered.filter((spec) => spec.project.config.isolate !== false);
		const sharedByProject = new Map<string, TestSpecification[]>();
		for (const spec of ordered) {
			if (spec.project.config.isolate !== false) continue;
			const group = sharedByProject.get(spec.project.name) ?? [];
			group.push(spec);
			sharedByProject.set(spec.project.name, group);
		}
		const shared = [...sharedByProject.values()].sort((a, b) => total(b) - total(a));
		return [...longestFirst(isolated), ...shared.flatMap(longestFirst)];
	}

	private expectedSeconds(spec: TestSpecification): number {
		const path = relative(this.ctx.config.root, spec.moduleId);
		const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
		if (cached) return cached.duration / 1000;
		// The table names a file by its store, as the CPU log does, not by a project.
		const store = spec.project.config.env?.AS2KIT_TEST_STORE === "pg" ? "pg" : "sqlite";
		return WEIGHTS[`${store}:${path}`] ?? 0;
	}
}
