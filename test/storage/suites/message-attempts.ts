import type { MessageAttemptRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { at } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const attempt = (number: number, overrides: Partial<MessageAttemptRecord> = {}): MessageAttemptRecord => ({
	tenantId: "tnt_000001",
	messageId: "msg_000001",
	number,
	direction: "outbound",
	startedAt: at(number),
	finishedAt: null,
	url: "https://partner.example/as2",
	httpStatus: null,
	bytesSent: null,
	bytesReceived: null,
	outcome: "retrying",
	errorCode: null,
	errorMessage: null,
	tlsVersion: null,
	peerCertificateSha256: null,
	phases: {},
	request: null,
	response: null,
	mdn: null,
	wireExpiresAt: null,
	...overrides,
});

export const messageAttemptTests = {
	"message attempts - created, listed by number, read back whole, other tenants see none": async ({ store }) => {
		const full = attempt(2, {
			finishedAt: at(3),
			httpStatus: 200,
			bytesSent: 3_000_000_000,
			bytesReceived: 812,
			outcome: "succeeded",
			tlsVersion: "TLSv1.3",
			peerCertificateSha256: "ab".repeat(32),
			phases: { buildMs: 3, connectMs: 1, tlsMs: 4, sendMs: 10, waitMs: 25 },
			request: { head: "POST /as2 HTTP/1.1\r\nHost: a\r\n\r\n", blobKey: "wire/msg_000001/2/request", bytes: 10 },
			response: { head: "HTTP/1.1 200 OK\r\n\r\n", blobKey: "wire/msg_000001/2/response", bytes: 812 },
		});
		await store.messageAttempts.create(full);
		await store.messageAttempts.create(attempt(1, { errorCode: "PARTNER_UNREACHABLE", errorMessage: "refused" }));
		await store.messageAttempts.create(attempt(1, { messageId: "msg_000002", tenantId: "tnt_000002" }));
		const list = await store.messageAttempts.list("tnt_000001", "msg_000001");
		expect(list.map((a) => a.number)).toEqual([1, 2]);
		expect(list[1]).toEqual(full);
		expect(await store.messageAttempts.get("tnt_000001", "msg_000001", 2)).toEqual(full);
		expect(await store.messageAttempts.get("tnt_000002", "msg_000001", 2)).toBeNull();
		expect(await store.messageAttempts.list("tnt_000002", "msg_000001")).toEqual([]);
		expect(await store.messageAttempts.get("tnt_000001", "msg_000001", 3)).toBeNull();
	},
	"message attempts - one number per message; update patches one attempt": async ({ store }) => {
		await store.messageAttempts.create(attempt(1));
		await expectConflict(store.messageAttempts.create(attempt(1)));
		const mdn = { head: "POST /as2/mdn HTTP/1.1\r\n\r\n", blobKey: "wire/msg_000001/1/mdn", bytes: 5 };
		const updated = await store.messageAttempts.update("msg_000001", 1, { mdn, outcome: "succeeded" });
		expect(updated).toEqual(attempt(1, { mdn, outcome: "succeeded" }));
		expect(await store.messageAttempts.update("msg_000001", 9, { outcome: "failed" })).toBeNull();
	},
	"message attempts - written in a transaction that fails are not kept": async ({ store }) => {
		await expect(
			store.transaction(async (tx) => {
				await tx.messageAttempts.create(attempt(1));
				throw new Error("rolled back");
			}),
		).rejects.toThrow("rolled back");
		expect(await store.messageAttempts.list("tnt_000001", "msg_000001")).toEqual([]);
	},
	"message attempts - those whose captures expired, soonest first, bounded": async ({ store }) => {
		await store.messageAttempts.create(attempt(1, { wireExpiresAt: at(30) }));
		await store.messageAttempts.create(attempt(2, { wireExpiresAt: at(10) }));
		await store.messageAttempts.create(attempt(3, { wireExpiresAt: at(20) }));
		await store.messageAttempts.create(attempt(4, { wireExpiresAt: null }));
		await store.messageAttempts.create(attempt(5, { wireExpiresAt: at(99) }));
		const expired = await store.messageAttempts.listWireExpired(at(30), 10);
		expect(expired.map((a) => a.number)).toEqual([2, 3, 1]);
		expect((await store.messageAttempts.listWireExpired(at(30), 2)).map((a) => a.number)).toEqual([2, 3]);
		await store.messageAttempts.update("msg_000001", 2, { request: null, wireExpiresAt: null });
		expect((await store.messageAttempts.listWireExpired(at(30), 10)).map((a) => a.number)).toEqual([3, 1]);
	},
} satisfies Record<string, ConformanceTest>;
