/** Assertions shared by the console's integration screen tests (integrations-*.test.ts). */
import type { Locator } from "playwright-core";
import { expect } from "vitest";

/** The API's error for a field is tied to its control: aria-invalid, and the last aria-describedby. */
export async function expectFieldError(control: Locator, message: RegExp): Promise<void> {
	await expect.poll(() => control.getAttribute("aria-invalid")).toBe("true");
	const describedBy = (await control.getAttribute("aria-describedby")) ?? "";
	const errorId = describedBy.split(" ").at(-1);
	expect(await control.page().locator(`[id="${errorId}"]`).textContent()).toMatch(message);
}
