import { request } from "node:https";

/** A JSON client for a server behind the test CA. */
export function httpsClient(baseUrl: string, caPem: string) {
	return function call(
		method: string,
		path: string,
		options: { token?: string; body?: unknown; timeoutMs?: number; headers?: Record<string, string> } = {},
		// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
	): Promise<{ status: number; json: any; text: string }> {
		return new Promise((resolve, reject) => {
			const body = options.body === undefined ? undefined : JSON.stringify(options.body);
			const req = request(
				new URL(path, baseUrl),
				{
					method,
					ca: caPem,
					headers: {
						...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
						...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
						...options.headers,
					},
					timeout: options.timeoutMs ?? 30_000,
				},
				(res) => {
					let text = "";
					res.setEncoding("utf8");
					res.on("data", (chunk: string) => {
						text += chunk;
					});
					res.on("end", () => {
						let json: unknown = null;
						try {
							json = JSON.parse(text);
						} catch {}
						resolve({ status: res.statusCode ?? 0, json, text });
					});
					res.on("error", reject);
				},
			);
			req.on("timeout", () => req.destroy(new Error("request timed out")));
			req.on("error", reject);
			req.end(body);
		});
	};
}
