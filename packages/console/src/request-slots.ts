/**
 * At most 4 API requests in flight from this tab: the Free plan admits 5 concurrent requests
 * per credential (decisions.md, Rate limits), and a screen such as the overview asks for a
 * dozen lists at once. The rest wait their turn here instead of getting 429.
 */
const MAX_IN_FLIGHT = 4;
let inFlight = 0;
const waiting: (() => void)[] = [];

export async function withRequestSlot<T>(run: () => Promise<T>): Promise<T> {
	if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
	inFlight += 1;
	try {
		return await run();
	} finally {
		inFlight -= 1;
		waiting.shift()?.();
	}
}

/** How long a 429 asks us to wait (Retry-After, seconds), bounded to 10 s; null: do not retry. */
export function retryDelayMs(response: {
	status: number;
	headers: { get(name: string): string | null };
}): number | null {
	if (response.status !== 429) return null;
	const seconds = Number(response.headers.get("Retry-After") ?? "1");
	return Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds : 1, 10) * 1000;
}
