import { describe, expect, it } from "vitest";
import { pack } from "../src/as2/pack.ts";
import { unpack } from "../src/as2/unpack.ts";
import { BUFFERED_MAX_BYTES, collect } from "../src/bytes/index.ts";
import { parties } from "./helpers/identities.ts";
import { settlesWithinMicrotasks } from "./helpers/microtasks.ts";

/**
 * Issue #20: an RSA-2048 signature is about 1 ms of CPU. A server packing small messages
 * between requests signs them in libuv's thread pool, so its event loop answers requests
 * meanwhile. A thread pool job is delivered by the loop's poll phase, never between
 * microtasks: a pack() that no number of microtasks settles did not sign in the loop.
 */
const { alice, aliceSigner, bobIdentity } = parties();
const EDI = new TextEncoder().encode("ISA*00*~GS*PO~ST*850~BEG*00*SA*42~SE*3~\n".repeat(20));
const message = { payload: EDI, contentType: "application/edi-x12", from: "ALICE", to: "BOB" };

describe("pack() of a small payload", () => {
	it("settles within microtasks when nothing is signed (the premise of the next test)", async () => {
		expect(await settlesWithinMicrotasks(pack(message))).toBe(true);
	});

	it("signs off the event loop, and the partner verifies the signature", async () => {
		const signing = pack({ ...message, sign: { ...aliceSigner, digest: "sha256" } });
		expect(await settlesWithinMicrotasks(signing)).toBe(false);
		const packed = await signing;
		const received = await unpack({
			headers: packed.headers,
			body: await collect(packed.body.open()),
			identities: [bobIdentity],
			partnerCertificates: [alice.certDer],
		});
		expect(Buffer.from(await collect(received.payload)).equals(Buffer.from(EDI))).toBe(true);
		const complete = await received.complete();
		expect(complete.signature).toBeDefined();
		expect(complete.mic).toEqual(await packed.mic());
	});

	it("over BUFFERED_MAX_BYTES, signs at the end of the stream off the event loop too", async () => {
		const large = new Uint8Array(BUFFERED_MAX_BYTES + 1).fill(0x41);
		const read = async (sign: boolean) => {
			const packed = await pack({
				...message,
				payload: large,
				contentType: "application/octet-stream",
				...(sign ? { sign: { ...aliceSigner, digest: "sha256" as const } } : {}),
			});
			expect(packed.body.bytes, "the streaming path").toBeUndefined();
			return collect(packed.body.open());
		};
		// The premise: an in-memory payload streams through in microtasks alone.
		expect(await settlesWithinMicrotasks(read(false), 10_000)).toBe(true);
		expect(await settlesWithinMicrotasks(read(true), 10_000)).toBe(false);
	});
});
