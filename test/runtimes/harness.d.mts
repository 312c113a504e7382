export type Runtime = "node" | NodeVersion | "bun" | "deno" | "workerd";
/** Node 22 and 24 beside the project's own Node 20 (node-versions.mjs). */
export type NodeVersion = "node22" | "node24";
export const RUNTIMES: Runtime[];
/** Whether the runtime binaries are installed here (linux-x64, or any CI run). */
export const RUNTIME_BINARIES_HERE: boolean;

export interface Identity {
	key: string;
	cert: string;
}
export type Keys = Record<"alice" | "bob", Identity>;

export interface CaseResult {
	name: string;
	ok: boolean;
	ms?: number;
	error?: string;
	/** The As2Error code when the case failed with one. */
	as2Code?: string;
	layers?: string[];
	bytes?: number;
}
export interface SuiteResult {
	results: CaseResult[];
	peakRssBytes?: number;
}
export interface BenchResult {
	roundTrips: number;
	perSecond: number;
	peakRssBytes?: number;
}

export function runtimeVersion(runtime: Runtime): string;
/** Installs Node 22/24 on first use: null when ready, else why not (outside CI; under CI it rejects). */
export function prepareRuntime(runtime: Runtime, install?: () => Promise<void>): Promise<string | null>;
export function makeKeys(dir: string): Keys;
export function runOnRuntime(
	runtime: Runtime,
	options: { dir: string; mode: "suite"; input: { keys: Keys; bigBytes: number }; timeoutMs: number },
): Promise<SuiteResult>;
export function runOnRuntime(
	runtime: Runtime,
	options: { dir: string; mode: "bench"; input: { keys: Keys; seconds: number }; timeoutMs: number },
): Promise<BenchResult>;
