/**
 * Generators of hostile requests for hostile-input.test.ts (fast-check): each builds the
 * headers and body of one request to an operation, from its sample body (operations-fixtures.ts)
 * or from nothing. Sizes stay within what the server reads (1 MB bodies, 16 KB headers), so
 * that each request tests a parser, not the network.
 */
import fc from "fast-check";

export interface HostileRequest {
	/** What was sent, for the failure message (bodies are summarised). */
	kind: string;
	headers: Record<string, string>;
	body: Uint8Array | string | FormData | undefined;
	/** Replaces the operation's last path parameter (already percent-encoded). */
	pathParam?: string;
	/** A query string (without `?`). */
	query?: string;
}

const MB = 1024 * 1024;
const utf8 = (text: string) => new TextEncoder().encode(text);
const json = (value: unknown) => ({ "content-type": "application/json", body: JSON.stringify(value) });

/** Values of every JSON type and of hostile strings: what a field gets instead of what it expects. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
	fc.jsonValue({ maxDepth: 3 }),
	fc.string({ unit: "binary", maxLength: 40 }),
	fc.constantFrom(
		"",
		" ",
		"\u0000",
		"\u202e\u0007",
		"\ud800",
		"null",
		"-1",
		"1e309",
		"__proto__",
		"𝕏".repeat(300),
		"%00%ff",
		"x".repeat(70_000),
		-1,
		2 ** 53,
		1e308,
		true,
		[],
		{},
		JSON.parse('{"__proto__":{"polluted":true}}'),
	),
);

/** The sample body with one field (or a new one) replaced by junk, in one of the body formats. */
function wrongTypes(sample: Record<string, unknown>): fc.Arbitrary<HostileRequest> {
	const fields = [...Object.keys(sample), "unexpected", "__proto__"];
	return fc
		.record({ field: fc.constantFrom(...fields), value: junk, format: fc.constantFrom("json", "form", "multipart") })
		.map(({ field, value, format }) => {
			const body = { ...sample, [field]: value };
			if (format === "json") {
				const { body: text, ...headers } = json(body);
				return { kind: `wrong type: ${field} (json)`, headers, body: text };
			}
			const pairs = Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)] as const);
			if (format === "form") {
				return {
					kind: `wrong type: ${field} (form)`,
					headers: { "content-type": "application/x-www-form-urlencoded" },
					body: new URLSearchParams(pairs.map(([k, v]) => [k, v ?? ""])).toString(),
				};
			}
			const form = new FormData();
			for (const [k, v] of pairs) form.append(k, v ?? "");
			return { kind: `wrong type: ${field} (multipart)`, headers: {}, body: form };
		});
}

/** JSON nested up to 100,000 deep, as lists or objects. */
const deepJson: fc.Arbitrary<HostileRequest> = fc
	.record({ depth: fc.integer({ min: 20, max: 100_000 }), objects: fc.boolean() })
	.map(({ depth, objects }) => ({
		kind: `deep json ${depth}${objects ? " objects" : ""}`,
		headers: { "content-type": "application/json" },
		body: objects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}${"]".repeat(depth)}`,
	}));

/** JSON near the 1 MB limit: many keys, many items, or one long string. */
const hugeJson: fc.Arbitrary<HostileRequest> = fc
	.record({ count: fc.integer({ min: 1_000, max: 60_000 }), shape: fc.constantFrom("keys", "items", "string") })
	.map(({ count, shape }) => {
		let body: string;
		if (shape === "keys") body = `{${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(",")}}`;
		else if (shape === "items") body = `{"name":[${Array(count).fill('"x"').join(",")}]}`;
		else body = JSON.stringify({ name: "n".repeat(Math.min(count * 16, MB - 64)) });
		return { kind: `huge json ${shape} ${count}`, headers: { "content-type": "application/json" }, body };
	});

/** One key repeated up to 30,000 times in a form (the quadratic parse of defect 2). */
function repeatedFormKeys(sample: Record<string, unknown>): fc.Arbitrary<HostileRequest> {
	return fc
		.record({
			key: fc.constantFrom(...Object.keys(sample), "a", "a[]", "a[b]"),
			count: fc.integer({ min: 2, max: 30_000 }),
		})
		.map(({ key, count }) => ({
			kind: `repeated form key ${key} × ${count}`,
			headers: { "content-type": "application/x-www-form-urlencoded" },
			body: `${encodeURIComponent(key)}=x&`.repeat(count),
		}));
}

/** Multipart bodies that break the format in each of its places. */
const brokenMultipart: fc.Arbitrary<HostileRequest> = fc
	.constantFrom(
		"no boundary parameter",
		"boundary not in the body",
		"no close delimiter",
		"part without headers",
		"part without Content-Disposition",
		"header block of 70 KB",
		"150 parts",
		"boundary of 300 characters",
		"binary garbage",
		"only the close delimiter",
	)
	.chain((shape) =>
		fc.uint8Array({ maxLength: 2048 }).map((garbage): HostileRequest => {
			const b = "xYz";
			const field = (name: string, value: string) =>
				`--${b}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
			let type = `multipart/form-data; boundary=${b}`;
			let body: Uint8Array | string;
			switch (shape) {
				case "no boundary parameter":
					type = "multipart/form-data";
					body = `${field("name", "x")}--${b}--\r\n`;
					break;
				case "boundary not in the body":
					body = `${field("name", "x").replaceAll(b, "other")}--other--\r\n`;
					break;
				case "no close delimiter":
					body = field("name", "x");
					break;
				case "part without headers":
					body = `--${b}\r\n\r\nvalue\r\n--${b}--\r\n`;
					break;
				case "part without Content-Disposition":
					body = `--${b}\r\nContent-Type: text/plain\r\n\r\nvalue\r\n--${b}--\r\n`;
					break;
				case "header block of 70 KB":
					body = `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${"f".repeat(70 * 1024)}"\r\n\r\nx\r\n--${b}--\r\n`;
					break;
				case "150 parts":
					body = `${field("name", "x").repeat(150)}--${b}--\r\n`;
					break;
				case "boundary of 300 characters":
					type = `multipart/form-data; boundary=${"b".repeat(300)}`;
					body = `--${"b".repeat(300)}\r\n\r\nx\r\n--${"b".repeat(300)}--\r\n`;
					break;
				case "binary garbage":
					body = new Uint8Array([...utf8(`--${b}\r\n`), ...garbage]);
					break;
				default:
					body = `--${b}--\r\n`;
			}
			return { kind: `broken multipart: ${shape}`, headers: { "content-type": type }, body };
		}),
	);

/** Bytes that are not UTF-8 (lone continuation bytes, overlongs, surrogates, 0xFF) in each body format. */
function invalidUtf8(sample: Record<string, unknown>): fc.Arbitrary<HostileRequest> {
	const badBytes = fc.array(
		fc.constantFrom(
			[0xff],
			[0xfe, 0xff],
			[0x80],
			[0xc3, 0x28],
			[0xe2, 0x28, 0xa1],
			[0xed, 0xa0, 0x80],
			[0xc0, 0xaf],
			[0xf8, 0x88, 0x80, 0x80, 0x80],
		),
		{ minLength: 1, maxLength: 8 },
	);
	return fc
		.record({
			field: fc.constantFrom(...Object.keys(sample), "name"),
			bytes: badBytes,
			format: fc.constantFrom("json", "form", "multipart"),
		})
		.map(({ field, bytes, format }) => {
			const bad = bytes.flat();
			const rest = JSON.stringify({ ...sample, [field]: undefined }).slice(1);
			let body: Uint8Array;
			let type: string;
			if (format === "json") {
				type = "application/json";
				body = new Uint8Array([...utf8(`{"${field}":"`), ...bad, ...utf8(`"${rest.length > 1 ? `,${rest}` : "}"}`)]);
			} else if (format === "form") {
				type = "application/x-www-form-urlencoded";
				body = new Uint8Array([...utf8(`${field}=`), ...bad, ...utf8(`&other=%FF%FE%C3%28`)]);
			} else {
				type = "multipart/form-data; boundary=q";
				body = new Uint8Array([
					...utf8(`--q\r\nContent-Disposition: form-data; name="${field}"; filename="`),
					...bad,
					...utf8(`"\r\n\r\n`),
					...bad,
					...utf8("\r\n--q--\r\n"),
				]);
			}
			return { kind: `invalid utf-8 in ${field} (${format})`, headers: { "content-type": type }, body };
		});
}

/** Latin-1 junk in the headers the API reads, beside a sample body (fetch sends bytes up to 0xFF). */
function hostileHeaders(sample: Record<string, unknown>): fc.Arbitrary<HostileRequest> {
	// Printable Latin-1 without DEL, which fetch itself refuses to send in a Content-Type.
	const latin1 = fc.string({
		unit: fc
			.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
			.map((c) => String.fromCharCode(c)),
		maxLength: 300,
	});
	return fc
		.record({
			name: fc.constantFrom(
				"x-tenant-id",
				"idempotency-key",
				"accept",
				"content-type",
				"x-request-id",
				"x-forwarded-for",
			),
			value: fc.oneof(
				latin1,
				fc.constantFrom("", ",,,", "*/*;q=x", "application/json; charset=ebcdic", "é".repeat(8000)),
			),
		})
		.map(({ name, value }) => ({
			kind: `header ${name}: ${JSON.stringify(value.slice(0, 40))}`,
			headers: { "content-type": "application/json", [name]: value },
			body: JSON.stringify(sample),
		}));
}

/** Every UTF-8 byte of `text` as %XX (a lone surrogate becomes U+FFFD, which encodeURIComponent refuses). */
const percentEncoded = (text: string) =>
	[...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");

/** A hostile last path parameter: NUL, bytes that are not UTF-8, traversal, SQL, a huge number, 3,000 characters. */
const hostilePathParam: fc.Arbitrary<HostileRequest> = fc
	.oneof(
		fc.constantFrom(
			"%00",
			"prt_%00",
			"%ff%fe",
			"%F0%9F%98%80",
			"..%2F..%2Fetc%2Fpasswd",
			"%27%20OR%201%3D1--",
			"prt_99999999999999999999999999",
			"-1",
			"%20",
			"a%2Fb",
			"%25",
			"x".repeat(3000),
		),
		fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map(percentEncoded),
	)
	.map((pathParam) => ({ kind: `path parameter ${pathParam.slice(0, 40)}`, headers: {}, body: undefined, pathParam }));

/** Hostile query parameters: NUL, bytes that are not UTF-8, numbers out of range, repeats, 8 KB values. */
const hostileQuery: fc.Arbitrary<HostileRequest> = fc
	.record({
		name: fc.constantFrom(
			"page",
			"per_page",
			"search",
			"partner_id",
			"status",
			"from_date",
			"type",
			"active",
			"period",
		),
		value: fc.oneof(
			fc.constantFrom(
				"%00",
				"a%00b",
				"%ff",
				"-1",
				"0",
				"1e309",
				"NaN",
				"99999999999999999999",
				"",
				"x".repeat(8000),
				"%25%25",
			),
			fc.string({ unit: "binary", maxLength: 30 }).map(percentEncoded),
		),
		repeat: fc.integer({ min: 1, max: 3 }),
	})
	.map(({ name, value, repeat }) => ({
		kind: `query ${name}=${value.slice(0, 40)} × ${repeat}`,
		headers: {},
		body: undefined,
		query: Array(repeat).fill(`${name}=${value}`).join("&"),
	}));

/**
 * AS2 bodies that break a layer (RFC 4130, RFC 5751): a signed multipart whose parts, boundary
 * or signature are damaged, CMS of random bytes (enveloped, compressed, signed), a report with
 * junk for an MDN, base64 that is not, each with random bytes where the layer expects
 * structure.
 */
const hostileAs2Body: fc.Arbitrary<HostileRequest> = fc
	.record({
		shape: fc.constantFrom(
			"signed, random signature",
			"signed, no second part",
			"signed, boundary missing",
			"enveloped CMS of random bytes",
			"compressed CMS of random bytes",
			"signed CMS of random bytes",
			"report of random bytes",
			"base64 that is not",
		),
		bytes: fc.uint8Array({ minLength: 0, maxLength: 4096 }),
	})
	.map(({ shape, bytes }) => {
		const b = "as2b";
		const signed = `multipart/signed; boundary=${b}; protocol="application/pkcs7-signature"; micalg=sha-256`;
		const cms = (type: string) => `application/pkcs7-mime; smime-type=${type}; name=smime.p7m`;
		const part = `--${b}
Content-Type: text/plain

hello
`;
		const table: Record<string, [string, Uint8Array | string, Record<string, string>?]> = {
			"signed, random signature": [
				signed,
				new Uint8Array([
					...utf8(`${part}--${b}
Content-Type: application/pkcs7-signature

`),
					...bytes,
					...utf8(`
--${b}--
`),
				]),
			],
			"signed, no second part": [
				signed,
				`${part}--${b}--
`,
			],
			"signed, boundary missing": ["multipart/signed; micalg=sha-256", new Uint8Array(bytes)],
			"enveloped CMS of random bytes": [cms("enveloped-data"), new Uint8Array(bytes)],
			"compressed CMS of random bytes": [cms("compressed-data"), new Uint8Array(bytes)],
			"signed CMS of random bytes": [cms("signed-data"), new Uint8Array(bytes)],
			"report of random bytes": [
				`multipart/report; report-type=disposition-notification; boundary=${b}`,
				new Uint8Array([
					...utf8(`--${b}
Content-Type: message/disposition-notification

`),
					...bytes,
				]),
			],
			"base64 that is not": [cms("enveloped-data"), "!!!! not base64 ####", { "content-transfer-encoding": "base64" }],
		};
		const [type, body, extra] = table[shape]!;
		return { kind: `as2 body: ${shape}`, headers: { "content-type": type, ...extra }, body };
	});

/** One hostile request of any kind for an operation whose sample body is `sample` (AS2 bodies for /as2). */
export function hostileRequest(sample: Record<string, unknown>, as2 = false): fc.Arbitrary<HostileRequest> {
	return fc.oneof(
		{ arbitrary: hostileAs2Body, weight: as2 ? 6 : 0 },
		{ arbitrary: wrongTypes(sample), weight: 4 },
		{ arbitrary: deepJson, weight: 1 },
		{ arbitrary: hugeJson, weight: 1 },
		{ arbitrary: repeatedFormKeys(sample), weight: 1 },
		{ arbitrary: brokenMultipart, weight: 2 },
		{ arbitrary: invalidUtf8(sample), weight: 2 },
		{ arbitrary: hostileHeaders(sample), weight: 2 },
		{ arbitrary: hostilePathParam, weight: 1 },
		{ arbitrary: hostileQuery, weight: 1 },
	);
}

/**
 * Requests fetch refuses to send, written on a raw socket: CR or LF inside a header value, a
 * NUL, an obsolete line folding, a header over Node's 16 KB, two different Content-Lengths,
 * Content-Length beside Transfer-Encoding, a broken chunk size. Node's parser must refuse each
 * with a 4xx (or close the connection), never the app with a 5xx, and the process stays up.
 */
export function malformedHeads(path: string, token: string): { kind: string; head: string; body: string }[] {
	const start = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n`;
	const json = "Content-Type: application/json\r\n";
	return [
		{
			kind: "bare CR in a header value",
			head: `${start}X-Tenant-ID: a\rInjected: 1\r\nContent-Length: 2\r\n\r\n`,
			body: "{}",
		},
		{
			kind: "bare LF in a header value",
			head: `${start}X-Tenant-ID: a\nInjected: 1\r\nContent-Length: 2\r\n\r\n`,
			body: "{}",
		},
		{ kind: "NUL in a header value", head: `${start}X-Request-Id: a\u0000b\r\nContent-Length: 2\r\n\r\n`, body: "{}" },
		{
			kind: "obsolete line folding",
			head: `${start}${json}X-Tenant-ID: a\r\n folded\r\nContent-Length: 2\r\n\r\n`,
			body: "{}",
		},
		{
			kind: "a 20 KB header",
			head: `${start}X-Padding: ${"p".repeat(20 * 1024)}\r\nContent-Length: 2\r\n\r\n`,
			body: "{}",
		},
		{
			kind: "two different Content-Lengths",
			head: `${start}${json}Content-Length: 2\r\nContent-Length: 40\r\n\r\n`,
			body: "{}",
		},
		{
			kind: "two equal Content-Lengths",
			head: `${start}${json}Content-Length: 2\r\nContent-Length: 2\r\n\r\n`,
			body: "{}",
		},
		{
			kind: "Content-Length beside Transfer-Encoding",
			head: `${start}${json}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n`,
			body: "2\r\n{}\r\n0\r\n\r\n",
		},
		{
			kind: "a broken chunk size",
			head: `${start}${json}Transfer-Encoding: chunked\r\n\r\n`,
			body: "zz\r\n{}\r\n0\r\n\r\n",
		},
		{ kind: "a negative Content-Length", head: `${start}${json}Content-Length: -1\r\n\r\n`, body: "{}" },
		{ kind: "a header name with a space", head: `${start}Bad Name: x\r\nContent-Length: 2\r\n\r\n`, body: "{}" },
		{
			kind: "UTF-8 bytes in Authorization",
			head: `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer Ã©\u00ff\r\nContent-Length: 0\r\n\r\n`,
			body: "",
		},
	];
}
