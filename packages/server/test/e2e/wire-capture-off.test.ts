import { afterAll, beforeAll, expect, it } from "vitest";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";

/** AS2_WIRE_CAPTURE=0: attempts are still recorded, with no capture kept on either side. */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;

beforeAll(async () => {
	pair = await startPair({ AS2_WIRE_CAPTURE: "0" });
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, { mdn_mode: "sync" });
	await addPartner(pair.b, pair.a, pair.pki);
});
afterAll(async () => {
	await pair?.close();
});

it("records the attempt and the receipt without wire links; a download is 404", async () => {
	const { a, b } = pair;
	const id = await sendMessage(a, partnerOnA);
	expect((await settled(a, id)).status).toBe("delivered");
	const [attempt] = (await a.call("GET", `/v1/messages/${id}/attempts`)).json.data;
	expect(attempt).toMatchObject({ number: 1, outcome: "succeeded", http_status: 200 });
	expect(attempt.tls_version).toMatch(/^TLSv1\.[23]$/);
	expect(attempt.wire).toEqual({ request: null, response: null, mdn: null });
	expect((await a.call("GET", `/v1/messages/${id}/attempts/1/request`)).status).toBe(404);
	const [inbound] = (await b.call("GET", "/v1/messages?direction=inbound")).json.data;
	const [receipt] = (await b.call("GET", `/v1/messages/${inbound.id}/attempts`)).json.data;
	expect(receipt).toMatchObject({ direction: "inbound", wire: { request: null, response: null, mdn: null } });
});
