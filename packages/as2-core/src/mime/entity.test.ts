import { describe, expect, it } from "vitest";
import { isAs2Error } from "../errors/index.ts";
import { parseMimeEntity, serializeMimeEntity } from "./entity.ts";
import { MimeHeaders } from "./header.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

function code(fn: () => unknown): string {
	try {
		fn();
	} catch (error) {
		if (isAs2Error(error)) return error.code;
		throw error;
	}
	return "no error";
}

describe("parseMimeEntity", () => {
	it("splits headers from the raw, still encoded body", () => {
		const entity = parseMimeEntity(
			bytes("Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\naGk=\r\n"),
		);
		expect(entity.headers.get("content-transfer-encoding")).toBe("base64");
		expect(text(entity.body)).toBe("aGk=\r\n");
	});

	it("accepts LF-only entities, no fields, and no body", () => {
		expect(text(parseMimeEntity(bytes("A: 1\n\nbody")).body)).toBe("body");
		const bare = parseMimeEntity(bytes("\r\nbody"));
		expect(bare.headers.size).toBe(0);
		expect(text(bare.body)).toBe("body");
		const headersOnly = parseMimeEntity(bytes("A: 1\r\n"));
		expect(headersOnly.headers.get("a")).toBe("1");
		expect(headersOnly.body.byteLength).toBe(0);
	});

	it("rejects a header block cut inside a line or longer than the limit", () => {
		expect(code(() => parseMimeEntity(bytes("A: 1\r\nB")))).toBe("MALFORMED_MIME");
		expect(code(() => parseMimeEntity(bytes(`X: ${"a".repeat(1 << 20)}\r\n\r\nbody`)))).toBe("MALFORMED_MIME");
		expect(code(() => parseMimeEntity(bytes("A: 1\r\nB: 2\r\n\r\n"), { maxHeaderBytes: 8 }))).toBe("MALFORMED_MIME");
	});
});

describe("serializeMimeEntity", () => {
	it("writes headers, a blank line and the body, and parses back", () => {
		const headers = new MimeHeaders([
			["Content-Type", 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"'],
			["Content-Transfer-Encoding", "binary"],
		]);
		const body = new Uint8Array([0, 13, 10, 13, 10, 255]);
		const out = serializeMimeEntity(headers, body);
		expect(text(out)).toBe(
			'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"\r\nContent-Transfer-Encoding: binary\r\n\r\n\0\r\n\r\n\xff',
		);
		const back = parseMimeEntity(out);
		expect(back.headers.entries()).toEqual(headers.entries());
		expect([...back.body]).toEqual([...body]);
	});
});
