/**
 * Whether `work` settles within `turns` microtasks. Work done in the event loop settles within
 * them; a job of libuv's thread pool is delivered by the loop's poll phase, after every
 * microtask, whatever the machine's speed. It is how the tests tell a signature made off the
 * loop (issue #20) without timing anything. A rejection is awaited too, and not rethrown.
 */
export async function settlesWithinMicrotasks(work: Promise<unknown>, turns = 100): Promise<boolean> {
	let settled = false;
	const done = work.then(
		() => {
			settled = true;
		},
		() => {
			settled = true;
		},
	);
	for (let i = 0; i < turns && !settled; i++) await null;
	const within = settled;
	await done;
	return within;
}
