/**
 * Multipart uploads through XMLHttpRequest, the one browser API that reports upload progress
 * (fetch cannot), so the send form can show a progress bar for large files.
 */
import { ApiError, apiErrorFrom, apiUrl, authHeaders } from "./api.ts";

export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
	return new Promise((resolve, reject) => {
		const xhr = new XMLHttpRequest();
		xhr.open("POST", apiUrl(path));
		for (const [name, value] of Object.entries({ Accept: "application/json", ...authHeaders() })) {
			xhr.setRequestHeader(name, value);
		}
		xhr.upload.onprogress = (event) => {
			if (event.lengthComputable) onProgress(event.loaded / event.total);
		};
		xhr.onerror = () => reject(new ApiError(0, "NETWORK_ERROR", "the server could not be reached"));
		xhr.onload = () => {
			if (xhr.status < 200 || xhr.status >= 300) return reject(apiErrorFrom(xhr.status, xhr.responseText));
			onProgress(1);
			resolve(JSON.parse(xhr.responseText) as T);
		};
		xhr.send(form);
	});
}
