/**
 * Deliberately naive MIME helpers for tests: an independent reading of what as2-core wrote,
 * so that a bug in src/mime cannot hide itself.
 */
export function splitEntity(entity: Buffer): { headers: Map<string, string>; body: Buffer } {
	let at = entity.indexOf("\r\n\r\n");
	let skip = 4;
	if (at < 0 || (entity.indexOf("\n\n") >= 0 && entity.indexOf("\n\n") < at)) {
		at = entity.indexOf("\n\n");
		skip = 2;
	}
	if (at < 0) throw new Error("no blank line after the headers");
	const headers = new Map<string, string>();
	const unfolded = entity
		.subarray(0, at)
		.toString("latin1")
		.replace(/\r?\n[ \t]+/g, " ");
	for (const line of unfolded.split(/\r?\n/)) {
		const colon = line.indexOf(":");
		if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
	}
	return { headers, body: entity.subarray(at + skip) };
}

export function param(contentType: string, name: string): string | undefined {
	const m = new RegExp(`;\\s*${name}\\s*=\\s*("([^"]*)"|[^;\\s]+)`, "i").exec(contentType);
	return m ? (m[2] ?? m[1]) : undefined;
}

/** The exact first part of a multipart body: what a detached signature and the MIC cover. */
export function firstPart(body: Buffer, boundary: string): Buffer {
	const open = body.indexOf(`--${boundary}\r\n`);
	const start = open + boundary.length + 4;
	const end = body.indexOf(`\r\n--${boundary}`, start);
	if (open < 0 || end < 0) throw new Error("multipart boundaries not found");
	return body.subarray(start, end);
}

/** The exact second part of a multipart body (the detached signature of multipart/signed). */
export function secondPart(body: Buffer, boundary: string): Buffer {
	const open = body.indexOf(`--${boundary}\r\n`);
	const second = body.indexOf(`\r\n--${boundary}\r\n`, open + 1);
	const start = second + boundary.length + 6;
	const end = body.indexOf(`\r\n--${boundary}`, start);
	if (second < 0 || end < 0) throw new Error("second part not found");
	return body.subarray(start, end);
}
