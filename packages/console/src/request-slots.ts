/**
 * How this tab spends the plan's rate limit (decisions.md, Rate limits). The Free plan admits
 * 5 concurrent requests and bursts of 20 refilled at 100 a minute, and a screen such as the
 * overview asks for a dozen lists at once: at most 4 requests are in flight, and after a 429
 * every request waits out its Retry-After together, instead of each failing on its own.
 */
const MAX_IN_FLIGHT = 4;
/** A refused request is sent again up to this many times. */
export const MAX_RATE_LIMIT_RETRIES = 5;
/**
 * The longest Retry-After waited out: the request-rate and concurrency limits name about a
 * second. A longer one (the plan's partner tests per hour) is the user's to wait for: the
 * request fails with the API's message.
 */
const MAX_WAIT_SECONDS = 10;
let inFlight = 0;
const waiting: (() => void)[] = [];
let pausedUntil = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function withRequestSlot<T>(run: () => Promise<T>): Promise<T> {
	if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
	inFlight += 1;
	try {
		while (Date.now() < pausedUntil) await sleep(pausedUntil - Date.now());
		return await run();
	} finally {
		inFlight -= 1;
		waiting.shift()?.();
	}
}

/**
 * After a 429 whose Retry-After is short: pauses every request for that long and answers true
 * (send it again); false for any other status, or a wait longer than MAX_WAIT_SECONDS.
 */
export function pauseForRateLimit(response: {
	status: number;
	headers: { get(name: string): string | null };
}): boolean {
	if (response.status !== 429) return false;
	const named = Number(response.headers.get("Retry-After") ?? "1");
	const seconds = Number.isFinite(named) && named > 0 ? named : 1;
	if (seconds > MAX_WAIT_SECONDS) return false;
	pausedUntil = Math.max(pausedUntil, Date.now() + seconds * 1000);
	return true;
}
