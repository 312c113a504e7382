/**
 * together.ts: the port calls a transaction makes at once. It settles only once every call has,
 * so that none runs after the transaction ended, and rejects with the error that came first.
 */
import { describe, expect, it } from "vitest";
import { together } from "../src/store/together.ts";

/** A promise settled by hand, with whether it has settled yet. */
function deferred() {
	let resolve!: () => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<void>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

describe("together", () => {
	it("waits for every call, the ones behind a failed one too, before it rejects", async () => {
		const failing = deferred();
		const slow = deferred();
		let settled = false;
		const all = together([failing.promise, slow.promise, undefined]).finally(() => {
			settled = true;
		});
		failing.reject(new Error("first"));
		await new Promise((resolve) => setImmediate(resolve));
		expect(settled).toBe(false);
		slow.resolve();
		await expect(all).rejects.toThrow("first");
	});

	it("rejects with the error that came first, not the first call's", async () => {
		const early = deferred();
		const late = deferred();
		const all = together([late.promise, early.promise]);
		early.reject(new Error("the statement that aborted the transaction"));
		await new Promise((resolve) => setImmediate(resolve));
		late.reject(new Error("current transaction is aborted"));
		await expect(all).rejects.toThrow("the statement that aborted the transaction");
	});

	it("resolves when every call does", async () => {
		await expect(together([Promise.resolve(1), undefined, Promise.resolve("x")])).resolves.toBeUndefined();
	});
});
