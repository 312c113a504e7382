export type Runtime = "node" | "bun" | "deno" | "workerd";
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
export function makeKeys(dir: string): Keys;
export function runOnRuntime(
	runtime: Runtime,
	options: { dir: string; mode: "suite"; input: { keys: Keys; bigBytes: number }; timeoutMs: number },
): Promise<SuiteResult>;
export function runOnRuntime(
	runtime: Runtime,
	options: { dir: string; mode: "bench"; input: { keys: Keys; seconds: number }; timeoutMs: number },
): Promise<BenchResult>;
