/**
 * An independent AS2 peer (RFC 4130) for the interop matrix: its crypto is only the OpenSSL
 * CLI (`openssl cms`, `openssl dgst`, spawned with execFile on files in temporary directories
 * removed after each operation), its HTTP is `node:http` (a loopback server on a port it
 * picks) and `fetch`, its MIME is a few lines of its own (openssl-peer-mime.ts). Nothing of
 * `@as2kit/core` is imported: what it verifies, it verifies on its own.
 *
 * - Receiving (`url`): decrypts (`cms -decrypt`, whatever key transport openssl finds), verifies
 *   (`cms -verify -binary`, the signer only from our identity certificate), computes the MIC as
 *   RFC 4130 §7.3.1 says with `openssl dgst`, and answers a signed MDN (a multipart/report
 *   built as text, signed by `openssl cms -sign`) in the HTTP response or, when the message
 *   names a Receipt-Delivery-Option, POSTed there after answering 200 (RFC 4130 §7.3).
 *   Per AS2 id it can answer as a quirky partner does (`answerAs`).
 * - Sending (`send`): builds a message with `openssl cms -sign/-encrypt`, POSTs it to the
 *   server, and verifies the MDN (sync, or async to its own `/mdn`) with `openssl cms
 *   -verify`, its Received-Content-MIC against the MIC it computed itself.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { openas2AsyncMdn, pyas2SignedMdn } from "../../packages/server/test/helpers/partner-bytes.ts";
import { inWorkspace, type OpensslDigest } from "./openssl-cli.ts";
import {
	base64Lines,
	buildMdnReport,
	decodedBody,
	headerParam,
	type MdnReport,
	mediaType,
	parseEntity,
	readMdnReport,
	requestedMicAlgorithms,
} from "./openssl-peer-mime.ts";
import {
	decryptEnveloped,
	encryptEntity,
	type Framing,
	MIC_NAME,
	micOf,
	type PeerIdentity,
	signEntity,
	verifySigned,
} from "./openssl-smime.ts";

export type { Framing, PeerIdentity };

/** How the peer answers messages addressed to one of its AS2 ids, as the partners of issue #17 do. */
export interface PeerQuirks {
	/** pyas2-lib 1.4.4 (as2-anchors §C6): its signed MDN carries no MIC when the message was not signed. */
	pyas2MiclessMdn?: boolean;
	/** OpenAS2 4.9 (issue #17 defect 5): the async MDN's body opens with its own Content-Type as a preamble. */
	openas2Preamble?: boolean;
	/** A signed MDN without Received-Content-MIC whatever the message (what RFC 4130 §7.4.3 forbids for signed ones). */
	omitMic?: boolean;
	/** Returns the MIC in this algorithm whatever was asked (RFC 4130 §7.3.1 lets the receiver choose). */
	micAlgorithm?: OpensslDigest;
	/** Orderful's axios (as2-anchors §C10): the async MDN's whole HTTP body base64, said in the HTTP headers. */
	base64HttpBody?: boolean;
	/** The signed MDN as the OpenSSL CLI frames it (see `signEntity`). */
	framing?: Framing;
	/** Signs the MDN with another key than the one the server knows: a forgery. */
	signWith?: PeerIdentity;
	/** More `openssl cms -sign` options for the MDN's signature (`-noattr`, `-keyopt rsa_padding_mode:pss` …). */
	mdnCmsOptions?: string[];
}

/** What the peer found in a message it received, all by its own means. */
export interface PeerReceived {
	messageId: string;
	from: string;
	to: string;
	/** From `openssl cms -cmsout -print` of what arrived; null when it came unencrypted. */
	encryption: { container: string; cipher: string; keyTransport: string } | null;
	/** The signer's digest and the `micalg` the multipart/signed named; null when unsigned. */
	signature: { digest: string; micalg: string | undefined; signedAttributes: boolean } | null;
	/** The Content-Transfer-Encoding of the entity holding the payload (none: binary). */
	transferEncoding: string;
	payload: Buffer;
	payloadType: string;
	/** The MIC it computed (RFC 4130 §7.3.1), `base64, sha-256` form; null when no MIC was asked. */
	mic: string | null;
	mdn: "sync" | "async" | "none";
	/** The MIC the MDN it sent carried (null: none). */
	mdnMic: string | null;
}

export interface PeerMessage {
	from: string;
	to: string;
	payload: Buffer;
	contentType: string;
	/** The entity's Content-Transfer-Encoding: binary (default) or base64 (as2-anchors §C.4, §D.2). */
	transferEncoding?: "binary" | "base64";
	/** Signed with this digest, `micalg` spelled so (default the RFC 5751 name, `sha-256`), framed so. */
	sign?: { digest: OpensslDigest; micalg?: string; framing?: Framing; cmsOptions?: string[] };
	/** Encrypted with this cipher (`openssl cms` option) and key transport (partner-setting names), to our certificate or `recipientCertPath`. */
	encrypt?: { cipher: string; keyTransport: string; recipientCertPath?: string; cmsOptions?: string[] };
	/**
	 * mendelson (issue #17 defect 4): the bare payload inside EnvelopedData, no MIME headers.
	 * Damaged (issue #17 defect 3): the signed body delivered with every CRLF turned into LF.
	 */
	shape?: "raw-enveloped" | "lf-damaged";
	mdn: "sync" | "async" | "none";
	/** Ask for a signed MDN (default true), its MIC in `micAlgorithm`, else the signing digest, else sha-256. */
	mdnSigned?: boolean;
	micAlgorithm?: OpensslDigest;
	as2Version?: string;
}

export interface PeerSent {
	messageId: string;
	status: number;
	/** The MIC the peer computed over what RFC 4130 §7.3.1 says, `base64, sha-256` form. */
	mic: string;
	/** The MDN as the peer verified it; null for `mdn: none`. */
	mdn: (MdnReport & { signed: boolean; signerDigest: string | null }) | null;
}

const WAIT_MS = 30_000;

export async function startOpensslPeer(options: { identity: PeerIdentity; workDir: string }) {
	const { identity, workDir } = options;
	let ourCertPath = "";
	const quirks = new Map<string, PeerQuirks>();
	const received = new Map<string, Deferred<PeerReceived>>();
	const mdns = new Map<string, Deferred<PeerSent["mdn"]>>();
	const mdnAnswers = new Map<string, Deferred<{ status: number; text: string }>>();
	const failures: string[] = [];
	let serverBase = "";

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: Error) => {
			failures.push(error.message);
			if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(error.message);
		});
	});
	server.listen(0, "127.0.0.1");
	await once(server, "listening");
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	async function handle(req: IncomingMessage, res: ServerResponse) {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const body = Buffer.concat(chunks);
		const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
		if (req.url === "/mdn") {
			try {
				const mdn = await verifyMdn(headers["content-type"] ?? "", body);
				deferred(mdns, mdn.originalMessageId).resolve(mdn);
			} catch (error) {
				// Whoever waits for this MDN learns why now, not at the timeout.
				const original = /Original-Message-ID:\s*<([^>]*)>/i.exec(body.toString("latin1"))?.[1];
				if (original) deferred(mdns, original).reject(error as Error);
				throw error;
			}
			res.writeHead(200, { "content-type": "text/plain" }).end("MDN received");
			return;
		}
		const messageId = (headers["message-id"] ?? "").replace(/^<|>$/g, "");
		try {
			await receive(messageId, headers, body, res);
		} catch (error) {
			deferred(received, messageId).reject(error as Error);
			throw error;
		}
	}

	/** RFC 4130 §7: unwrap, verify, compute the MIC, answer the MDN asked for. */
	async function receive(messageId: string, headers: Record<string, string>, body: Buffer, res: ServerResponse) {
		const from = headers["as2-from"] ?? "";
		const to = headers["as2-to"] ?? "";
		let entity: Buffer = Buffer.concat([Buffer.from(`Content-Type: ${headers["content-type"]}\r\n\r\n`), body]);
		let encryption: PeerReceived["encryption"] = null;
		let signature: PeerReceived["signature"] = null;
		let micInput: Buffer | null = null;
		if (/pkcs7-mime/i.test(headers["content-type"] ?? "")) {
			({ entity, encryption } = await decryptEnveloped(workDir, body, identity));
			// RFC 4130 §7.3.1: encrypted, unsigned → the MIC covers the decrypted entity, headers and all.
			micInput = entity;
		}
		let parsed = parseEntity(entity);
		if (mediaType(parsed.headers["content-type"]) === "multipart/signed") {
			const verified = await verifySigned(workDir, entity, ourCertPath);
			signature = {
				digest: verified.digest,
				micalg: headerParam(parsed.headers["content-type"]!, "micalg"),
				signedAttributes: verified.signedAttributes,
			};
			// RFC 4130 §7.3.1: signed → the MIC covers the signed entity, headers and all, as signed.
			micInput = verified.content;
			parsed = parseEntity(verified.content);
		}
		const payload = decodedBody(parsed);
		// RFC 4130 §7.3.1: unsigned, unencrypted → the MIC covers the content without headers.
		micInput ??= payload;
		const quirk = quirks.get(to) ?? {};
		const wantsMdn = Boolean(headers["disposition-notification-to"]);
		const options = headers["disposition-notification-options"];
		const signedMdn = /pkcs7-signature/i.test(options ?? "");
		const micAlgorithm = (quirk.micAlgorithm ?? requestedMicAlgorithms(options)[0] ?? "sha256") as OpensslDigest;
		const mic = signedMdn ? await micOf(workDir, micInput, micAlgorithm) : null;
		const asyncUrl = headers["receipt-delivery-option"];
		const mode = !wantsMdn ? "none" : asyncUrl ? "async" : "sync";
		const mdnMic = quirk.omitMic || (quirk.pyas2MiclessMdn && !signature) ? null : mic;
		const record: PeerReceived = {
			messageId,
			from,
			to,
			encryption,
			signature,
			payload,
			payloadType: parsed.headers["content-type"] ?? "",
			transferEncoding: parsed.headers["content-transfer-encoding"] ?? "binary",
			mic,
			mdn: mode,
			mdnMic,
		};
		if (mode === "none") {
			res.writeHead(200, { "content-type": "text/plain" }).end("received");
			deferred(received, messageId).resolve(record);
			return;
		}
		const mdn = await buildMdn({
			from: to,
			to: from,
			originalMessageId: messageId,
			mic: mdnMic,
			signed: signedMdn,
			quirk,
			micAlgorithm,
		});
		if (mode === "sync") {
			res.writeHead(200, mdn.headers).end(mdn.body);
			deferred(received, messageId).resolve(record);
			return;
		}
		res.writeHead(200, { "content-type": "text/plain" }).end("received; the MDN follows");
		deferred(received, messageId).resolve(record);
		const posted = await fetch(asyncUrl!, {
			method: "POST",
			headers: mdn.headers,
			body: new Uint8Array(mdn.body),
			signal: AbortSignal.timeout(WAIT_MS),
		});
		const answer = { status: posted.status, text: await posted.text() };
		deferred(mdnAnswers, messageId).resolve(answer);
		if (answer.status !== 200 && !quirk.signWith) {
			throw new Error(`${messageId}: our async MDN was answered ${answer.status} ${answer.text}`);
		}
	}

	async function buildMdn(fields: {
		from: string;
		to: string;
		originalMessageId: string;
		mic: string | null;
		signed: boolean;
		quirk: PeerQuirks;
		micAlgorithm: OpensslDigest;
	}): Promise<{ headers: Record<string, string>; body: Buffer }> {
		const as2Headers = {
			"AS2-Version": "1.2",
			"AS2-From": fields.from,
			"AS2-To": fields.to,
			"Message-ID": `<mdn-${Date.now()}-${Math.random().toString(36).slice(2)}@openssl-peer>`,
		};
		const mdnFields = {
			from: fields.from,
			to: fields.to,
			originalMessageId: fields.originalMessageId,
			mic: fields.mic ?? undefined,
		};
		let wire: { headers: Record<string, string>; body: Buffer };
		// The partners' own MDN shapes (partner-bytes.ts assembles them as they write them, signed by openssl).
		if (fields.quirk.pyas2MiclessMdn && fields.signed) {
			wire = await inWorkspace(workDir, async (ws) => pyas2SignedMdn(ws.path(""), mdnFields, identity));
		} else if (fields.quirk.openas2Preamble && fields.signed) {
			wire = await inWorkspace(workDir, async (ws) => openas2AsyncMdn(ws.path(""), mdnFields, identity));
		} else {
			const report = buildMdnReport({ ...fields, disposition: "processed" });
			if (fields.signed) {
				const signed = await signEntity(workDir, report, fields.micAlgorithm, fields.quirk.signWith ?? identity, {
					...(fields.quirk.framing ? { framing: fields.quirk.framing } : {}),
					...(fields.quirk.mdnCmsOptions ? { cmsOptions: fields.quirk.mdnCmsOptions } : {}),
				});
				wire = { headers: { ...as2Headers, "Content-Type": signed.contentType }, body: signed.body };
			} else {
				const entity = parseEntity(report);
				wire = { headers: { ...as2Headers, "Content-Type": entity.headers["content-type"]! }, body: entity.body };
			}
		}
		if (fields.quirk.base64HttpBody) {
			wire = {
				headers: { ...wire.headers, "Content-Transfer-Encoding": "base64" },
				body: Buffer.from(`${base64Lines(wire.body)}\r\n`, "latin1"),
			};
		}
		return wire;
	}

	/** An MDN as received (Content-Type and body): verified with openssl when signed, then read. */
	async function verifyMdn(contentType: string, body: Buffer): Promise<NonNullable<PeerSent["mdn"]>> {
		const entity = Buffer.concat([Buffer.from(`Content-Type: ${contentType}\r\n\r\n`), body]);
		if (mediaType(contentType) === "multipart/signed") {
			const verified = await verifySigned(workDir, entity, ourCertPath);
			return { ...readMdnReport(verified.content), signed: true, signerDigest: verified.digest };
		}
		return { ...readMdnReport(entity), signed: false, signerDigest: null };
	}

	/** Builds a message with openssl, POSTs it to the server, and verifies the MDN asked for. */
	async function send(message: PeerMessage): Promise<PeerSent> {
		const messageId = `ossl-${Date.now()}-${Math.random().toString(36).slice(2)}@openssl-peer`;
		const encoding = message.transferEncoding ?? "binary";
		const content =
			encoding === "base64" ? Buffer.from(`${base64Lines(message.payload)}\r\n`, "latin1") : message.payload;
		const entity = Buffer.concat([
			Buffer.from(
				`Content-Type: ${message.contentType}\r\nContent-Transfer-Encoding: ${encoding}\r\nContent-Disposition: attachment; filename="matrix.edi"\r\n\r\n`,
				"latin1",
			),
			content,
		]);
		const micAlgorithm: OpensslDigest = message.micAlgorithm ?? message.sign?.digest ?? "sha256";
		// RFC 4130 §7.3.1: signed or encrypted, the MIC covers the entity, headers and all, that
		// was signed or encrypted; neither (or mendelson's bare file), the content alone.
		const bare = message.shape === "raw-enveloped" || (!message.sign && !message.encrypt);
		const micInput = bare ? message.payload : entity;
		let contentType = message.contentType;
		let body = bare ? message.payload : entity;
		if (message.sign) {
			const signed = await signEntity(workDir, entity, message.sign.digest, identity, {
				...(message.sign.micalg ? { micalg: message.sign.micalg } : {}),
				...(message.sign.framing ? { framing: message.sign.framing } : {}),
				...(message.sign.cmsOptions ? { cmsOptions: message.sign.cmsOptions } : {}),
			});
			contentType = signed.contentType;
			body = signed.body;
			if (message.shape === "lf-damaged") body = Buffer.from(body.toString("latin1").replace(/\r\n/g, "\n"), "latin1");
		}
		if (message.encrypt) {
			const toEncrypt = message.sign
				? Buffer.concat([Buffer.from(`Content-Type: ${contentType}\r\n\r\n`), body])
				: body;
			const encrypted = await encryptEntity(workDir, toEncrypt, { recipientCertPath: ourCertPath, ...message.encrypt });
			contentType = encrypted.contentType;
			body = encrypted.body;
		}
		const mic = await micOf(workDir, micInput, micAlgorithm);
		const headers: Record<string, string> = {
			"AS2-Version": message.as2Version ?? "1.2",
			"AS2-From": message.from,
			"AS2-To": message.to,
			"Message-ID": `<${messageId}>`,
			"Mime-Version": "1.0",
			"Content-Type": contentType,
		};
		if (message.mdn !== "none") {
			headers["Disposition-Notification-To"] = "edi@openssl-peer.example";
			if (message.mdnSigned !== false) {
				headers["Disposition-Notification-Options"] =
					`signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, ${MIC_NAME[micAlgorithm]}`;
			}
		}
		if (message.mdn === "async") headers["Receipt-Delivery-Option"] = `${base}/mdn`;
		const response = await fetch(`${serverBase}/as2/receive`, {
			method: "POST",
			headers,
			body: new Uint8Array(body),
			signal: AbortSignal.timeout(WAIT_MS),
		});
		const answer = Buffer.from(await response.arrayBuffer());
		let mdn: PeerSent["mdn"] = null;
		if (message.mdn === "sync" && response.status === 200) {
			mdn = await verifyMdn(response.headers.get("content-type") ?? "", answer);
		} else if (message.mdn === "async" && response.status === 200) {
			mdn = await waitFor(deferred(mdns, messageId).promise, `the async MDN for ${messageId}`);
		}
		return { messageId, status: response.status, mic, mdn };
	}

	return {
		/** The peer's AS2 endpoint, for the partner records on the server. */
		url: `${base}/as2`,
		/** Our identity certificate (PEM file) and the server's base URL, once the server runs. */
		trust(certPath: string, serverBaseUrl: string) {
			ourCertPath = certPath;
			serverBase = serverBaseUrl;
		},
		/** Messages to `as2Id` are answered as `quirk` says. */
		answerAs(as2Id: string, quirk: PeerQuirks) {
			quirks.set(as2Id, quirk);
		},
		/** What the peer found in the message with this Message-ID, once it has answered (bounded wait). */
		received(messageId: string): Promise<PeerReceived> {
			return waitFor(deferred(received, messageId).promise, `the peer receiving ${messageId}`);
		},
		/** How the server answered the async MDN the peer posted for this message (bounded wait). */
		mdnAnswer(messageId: string): Promise<{ status: number; text: string }> {
			return waitFor(deferred(mdnAnswers, messageId).promise, `the answer to the MDN for ${messageId}`);
		},
		send,
		/** What went wrong inside the peer since the last call (every test checks it is nothing). */
		takeFailures: () => failures.splice(0),
		async stop() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export type OpensslPeer = Awaited<ReturnType<typeof startOpensslPeer>>;

interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(error: Error): void;
}

function deferred<T>(map: Map<string, Deferred<T>>, key: string): Deferred<T> {
	let entry = map.get(key);
	if (!entry) {
		let resolve!: (value: T) => void;
		let reject!: (error: Error) => void;
		const promise = new Promise<T>((ok, fail) => {
			resolve = ok;
			reject = fail;
		});
		// Rejections are read by whoever waits; none may go unhandled before that.
		promise.catch(() => {});
		entry = { promise, resolve, reject };
		map.set(key, entry);
	}
	return entry;
}

function waitFor<T>(promise: Promise<T>, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what}: nothing within ${WAIT_MS} ms`)), WAIT_MS);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
