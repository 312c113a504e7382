import { expect, it } from "vitest";
import { packAndUnpack } from "./pack-and-unpack.ts";

it("examples/pack-and-unpack runs end to end", async () => {
	expect(await packAndUnpack()).toEqual({
		payload: "UNA:+.? 'UNB+UNOC:3+ALICE+BOB'UNH+1+ORDERS:D:96A:UN'",
		delivered: true,
	});
});
