import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorCode as code } from "../../test/helpers/error-code.ts";
import { type Chunks, collect } from "../bytes/index.ts";
import { isAs2Error } from "../errors/index.ts";
import { base64EncodedSize, decodeTransferEncoding, encodeBase64 } from "./transfer-encoding.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

async function* pieces(data: Uint8Array, cuts: number[] = []): Chunks {
	let from = 0;
	for (const cut of [...cuts].sort((a, b) => a - b)) {
		yield data.subarray(from, Math.min(cut, data.byteLength));
		from = Math.min(cut, data.byteLength);
	}
	yield data.subarray(from);
}

const decode = async (encoding: string | undefined, input: string | Uint8Array, cuts: number[] = []) =>
	collect(decodeTransferEncoding(encoding, pieces(typeof input === "string" ? bytes(input) : input, cuts)));

describe("decodeTransferEncoding: identity encodings", () => {
	it("passes 7bit, 8bit, binary and a missing header through untouched", () => {
		const body = pieces(bytes("x"));
		for (const name of [undefined, "", "7bit", "8BIT", " Binary "])
			expect(decodeTransferEncoding(name, body)).toBe(body);
	});

	it("rejects an unknown encoding at once", () => {
		let caught: unknown;
		try {
			decodeTransferEncoding("x-uuencode", pieces(bytes("")));
		} catch (error) {
			caught = error;
		}
		expect(isAs2Error(caught) && caught.code).toBe("MALFORMED_MIME");
	});
});

describe("decodeTransferEncoding: base64", () => {
	it("decodes RFC 4648 §10 vectors, any case of the name", async () => {
		const vectors: [string, string][] = [
			["", ""],
			["Zg==", "f"],
			["Zm8=", "fo"],
			["Zm9v", "foo"],
			["Zm9vYg==", "foob"],
			["Zm9vYmE=", "fooba"],
			["Zm9vYmFy", "foobar"],
		];
		for (const [encoded, plain] of vectors) expect(text(await decode("BASE64", encoded))).toBe(plain);
	});

	it("tolerates CRLF and LF lines, spaces, tabs and missing padding", async () => {
		expect(text(await decode("base64", "Zm9v\r\nYmFy\r\n"))).toBe("foobar");
		expect(text(await decode("base64", "Zm9v\nYmFy\n"))).toBe("foobar");
		expect(text(await decode("base64", " Zm 9v\tYm\r\n Fy "))).toBe("foobar");
		expect(text(await decode("base64", "Zm9vYg"))).toBe("foob");
		expect(text(await decode("base64", "Zm9vYmE"))).toBe("fooba");
		expect(text(await decode("base64", "Zm9vYmE=\r\n"))).toBe("fooba");
	});

	it("decodes padded blocks run together", async () => {
		expect(text(await decode("base64", "Zg==Zm8=Zm9v"))).toBe("ffofoo");
		expect(text(await decode("base64", "Zg===\r\n=Zg"))).toBe("ff");
	});

	it("rejects characters outside the alphabet, base64url ones included", async () => {
		for (const bad of ["Zm9v!", "Zm9v-_", "Zm\u00e99v", "Zm9v\0"]) {
			expect(await code(decode("base64", bad)), JSON.stringify(bad)).toBe("MALFORMED_MIME");
		}
	});

	it("rejects a lone character left in a group", async () => {
		expect(await code(decode("base64", "Zm9vY"))).toBe("MALFORMED_MIME");
		expect(await code(decode("base64", "Zm9vY="))).toBe("MALFORMED_MIME");
	});

	it("decodes the same bytes for any line layout and chunking (property)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.uint8Array({ maxLength: 300 }),
				fc.constantFrom("\r\n", "\n", " "),
				fc.integer({ min: 1, max: 80 }),
				fc.boolean(),
				fc.array(fc.nat(), { maxLength: 10 }),
				async (data, lineEnd, width, stripPadding, rawCuts) => {
					let encoded = Buffer.from(data).toString("base64");
					if (stripPadding) encoded = encoded.replace(/=+$/, "");
					const lines = encoded.match(new RegExp(`.{1,${width}}`, "g")) ?? [];
					const input = bytes(lines.join(lineEnd) + (lines.length ? lineEnd : ""));
					const cuts = rawCuts.map((c) => c % (input.byteLength + 1));
					expect(Buffer.from(await decode("base64", input, cuts))).toEqual(Buffer.from(data));
				},
			),
			{ numRuns: 500 },
		);
	});
});

describe("decodeTransferEncoding: quoted-printable", () => {
	it("decodes =XX in either case and soft line breaks", async () => {
		expect(text(await decode("quoted-printable", "caf=C3=A9 =3d =3D=0D=0A"))).toBe("caf\u00c3\u00a9 = =\r\n");
		expect(text(await decode("Quoted-Printable", "long li=\r\nne, LF =\nsoft"))).toBe("long line, LF soft");
		expect(text(await decode("quoted-printable", "a\r\nb\nc"))).toBe("a\r\nb\nc");
	});

	it("deletes transport padding at line ends, around soft breaks too (RFC 2045 §6.7 rule 3)", async () => {
		expect(text(await decode("quoted-printable", "a  \t\r\nb \nc=  \r\nd\t"))).toBe("a\r\nb\ncd");
		expect(text(await decode("quoted-printable", "keep  inner\r\n"))).toBe("keep  inner\r\n");
		expect(text(await decode("quoted-printable", "=20\r\n"))).toBe(" \r\n");
	});

	it("passes malformed = sequences through literally", async () => {
		expect(text(await decode("quoted-printable", "a=G1 b=1 c=\u00e9 d= x e="))).toBe("a=G1 b=1 c=\u00e9 d= x e");
		expect(text(await decode("quoted-printable", "50=%"))).toBe("50=%");
		expect(text(await decode("quoted-printable", "=4"))).toBe("=4");
	});

	it("treats a very long white-space run as data", async () => {
		const run = " ".repeat(1500);
		expect(text(await decode("quoted-printable", `a${run}\r\nb`))).toBe(`a${" ".repeat(1025)}\r\nb`);
	});

	it("decodes the same bytes for any chunking (property)", async () => {
		const qp = fc
			.array(fc.constantFrom("=", "A", "f", "3", "D", "\r", "\n", " ", "\t", "x", "=\r\n", "=3D", "=e9"), {
				maxLength: 60,
			})
			.map((a) => a.join(""));
		await fc.assert(
			fc.asyncProperty(qp, fc.array(fc.nat(), { maxLength: 10 }), async (input, rawCuts) => {
				const whole = await decode("quoted-printable", input);
				const cuts = rawCuts.map((c) => c % (input.length + 1));
				expect(text(await decode("quoted-printable", input, cuts))).toBe(text(whole));
			}),
			{ numRuns: 1000 },
		);
	});

	it("round-trips a simple encoder's output (property)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.uint8Array({ maxLength: 200 }),
				fc.array(fc.nat(), { maxLength: 10 }),
				async (data, rawCuts) => {
					let encoded = "";
					let column = 0;
					for (const b of data) {
						const literal = (b >= 33 && b <= 126 && b !== 61) || (b === 32 && column < 10);
						const piece = literal ? String.fromCharCode(b) : `=${b.toString(16).padStart(2, "0")}`;
						if (column + piece.length > 20) {
							encoded += "=\r\n";
							column = 0;
						}
						encoded += piece;
						column += piece.length;
					}
					// a space right before a soft break would be padding: encode it
					encoded = encoded.replace(/ (?==\r\n|$)/g, "=20");
					const cuts = rawCuts.map((c) => c % (encoded.length + 1));
					expect(Buffer.from(await decode("quoted-printable", encoded, cuts))).toEqual(Buffer.from(data));
				},
			),
			{ numRuns: 300 },
		);
	});
});

describe("encodeBase64", () => {
	const expected = (data: Uint8Array, width = 76) => {
		const encoded = Buffer.from(data).toString("base64");
		return (encoded.match(new RegExp(`.{1,${width}}`, "g")) ?? []).map((line) => `${line}\r\n`).join("");
	};

	it("writes CRLF-terminated 76-char lines, the last one terminated too", async () => {
		const data = new Uint8Array(100).map((_, i) => i);
		const out = text(await collect(encodeBase64(pieces(data))));
		expect(out).toBe(expected(data));
		const lines = out.split("\r\n");
		expect(lines.map((l) => l.length)).toEqual([76, 60, 0]);
		expect(text(await collect(encodeBase64(pieces(bytes("foob")))))).toBe("Zm9vYg==\r\n");
		expect((await collect(encodeBase64(pieces(new Uint8Array(0))))).byteLength).toBe(0);
	});

	it("matches Node's encoder for any chunking and line length (property)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.uint8Array({ maxLength: 400 }),
				fc.constantFrom(76, 64, 4, 10, 1, 77),
				fc.array(fc.nat(), { maxLength: 12 }),
				async (data, width, rawCuts) => {
					const cuts = rawCuts.map((c) => c % (data.byteLength + 1));
					const out = await collect(encodeBase64(pieces(data, cuts), width));
					expect(text(out)).toBe(expected(data, width));
					expect(out.byteLength).toBe(base64EncodedSize(data.byteLength, width));
				},
			),
			{ numRuns: 300 },
		);
	});

	it("base64EncodedSize is the exact output length for 0..300 bytes and large inputs", async () => {
		for (let n = 0; n <= 300; n++) {
			const out = await collect(encodeBase64(pieces(new Uint8Array(n).fill(n), [n >> 1])));
			expect(out.byteLength, `n=${n}`).toBe(base64EncodedSize(n));
			expect(out.byteLength, `n=${n}`).toBe(expected(new Uint8Array(n).fill(n)).length);
		}
		for (const n of [57 * 1000, 57 * 1000 + 1, 65536, (1 << 20) + 2, 3 * (1 << 20)]) {
			const data = new Uint8Array(n).fill(7);
			let size = 0;
			for await (const chunk of encodeBase64(pieces(data, [1, 65536, 65537, 200_000]))) size += chunk.byteLength;
			expect(size, `n=${n}`).toBe(base64EncodedSize(n));
			expect(size, `n=${n}`).toBe(expected(data).length);
		}
		expect(base64EncodedSize(0)).toBe(0);
		expect(base64EncodedSize(57)).toBe(78);
		expect(base64EncodedSize(58)).toBe(78 + 6);
		// 2 GB: arithmetic only, no overflow
		expect(base64EncodedSize(2 ** 31)).toBe(
			Math.ceil(2 ** 31 / 3) * 4 + 2 * Math.ceil((Math.ceil(2 ** 31 / 3) * 4) / 76),
		);
	});

	it("round-trips through decodeTransferEncoding", async () => {
		const data = crypto.getRandomValues(new Uint8Array(10_000));
		const back = await collect(decodeTransferEncoding("base64", encodeBase64(pieces(data, [3, 1000, 5000]))));
		expect(Buffer.from(back)).toEqual(Buffer.from(data));
	});

	it("refuses a line length below 1", async () => {
		await expect(collect(encodeBase64(pieces(bytes("x")), 0))).rejects.toThrow(RangeError);
	});
});
