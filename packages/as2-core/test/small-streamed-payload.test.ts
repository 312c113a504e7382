import { describe, expect, it } from "vitest";
import { pack } from "../src/as2/pack.ts";
import { unpack } from "../src/as2/unpack.ts";
import { BUFFERED_MAX_BYTES, collect } from "../src/bytes/index.ts";
import { parties } from "./helpers/identities.ts";
import { streamingSource } from "./helpers/paths.ts";

/**
 * The server gives pack() its payload as a file it streams. A small one is read into memory
 * first, so that every layer takes the buffered path (issue #20: one signing pass instead of
 * two, no chain of async generators per message): the same bytes, for less CPU.
 */
const { alice, bob, aliceSigner, bobIdentity } = parties();
const EDI = new TextEncoder().encode("ISA*00*~GS*PO~ST*850~BEG*00*SA*42~SE*3~\n".repeat(200));
const layers = {
	contentType: "application/edi-x12",
	from: "ALICE",
	to: "BOB",
	sign: { ...aliceSigner, digest: "sha256" as const },
	encrypt: { certificates: [bob.certDer], algorithm: "aes256" as const },
	compress: "before-sign" as const,
	mdn: { mode: "sync" as const, signed: ["sha256" as const] },
};

describe("a small payload given as a stream", () => {
	it("is packed on the buffered path, and the partner reads it back", async () => {
		const message = await pack({ ...layers, payload: streamingSource(EDI) });
		expect(message.body.bytes, "the body is one array in memory").toBeDefined();
		const received = await unpack({
			headers: message.headers,
			body: await collect(message.body.open()),
			identities: [bobIdentity],
			partnerCertificates: [alice.certDer],
		});
		expect(Buffer.from(await collect(received.payload)).equals(Buffer.from(EDI))).toBe(true);
		expect((await received.complete()).mic).toEqual(await message.mic());
	});

	it("that yields another size than it declares is refused by pack()", async () => {
		const short = { size: EDI.byteLength, open: streamingSource(EDI.subarray(1)).open };
		await expect(pack({ ...layers, payload: short })).rejects.toThrow(/declared/);
	});

	it("over BUFFERED_MAX_BYTES still streams", async () => {
		const large = new Uint8Array(BUFFERED_MAX_BYTES + 1).fill(0x41);
		const message = await pack({ ...layers, payload: streamingSource(large) });
		expect(message.body.bytes).toBeUndefined();
	});
});
