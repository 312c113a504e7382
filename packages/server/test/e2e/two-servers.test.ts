import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPartner, startPair } from "../helpers/peers.ts";
import { eventually } from "../helpers/worker.ts";

let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;
let partnerOnB: string;

beforeAll(async () => {
	pair = await startPair();
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, {
		sign_algorithm: "SHA256withRSA",
		encrypt_algorithm: "AES256_CBC",
	});
	partnerOnB = await addPartner(pair.b, pair.a, pair.pki, { sign_algorithm: "SHA256withRSA" });
});
afterAll(() => pair.close());

describe("smoke", () => {
	it("sends a signed, encrypted, compressed message with a signed sync MDN from A to B", async () => {
		const payload = "ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\nGS*PO*ALPHA*BETA~\n";
		const sent = await pair.a.call("POST", "/v1/messages", {
			partner_id: partnerOnA,
			content_type: "application/edi-x12",
			payload: { content: payload, filename: "po.edi" },
			sign: true,
			encrypt: true,
			compress: true,
			mdn_mode: "sync",
		});
		expect(sent.status, sent.text).toBe(202);
		const id = sent.json.data.id;
		const final = await eventually(async () => {
			const m =
				(await pair.a.call("GET", `/v1/messages/${id}`)).json?.data ??
				(await pair.a.server.store.messages.get(pair.a.tenantId, id));
			const record = await pair.a.server.store.messages.get(pair.a.tenantId, id);
			return record && ["delivered", "failed"].includes(record.status) ? record : null;
		}, "a final state");
		expect(final.status, `${final.errorCode}: ${final.errorMessage}`).toBe("delivered");
		const received = await pair.b.server.store.messages.findByMessageId(pair.b.tenantId, final.messageId, {
			direction: "inbound",
		});
		expect(received).toMatchObject({
			status: "received",
			signed: true,
			encrypted: true,
			compressed: true,
			filename: "po.edi",
		});
		void partnerOnB;
	});
});
