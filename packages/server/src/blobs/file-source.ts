import { type FileHandle, open } from "node:fs/promises";

/** Bytes read per pull: large enough that the thread-pool round trips stay cheap. */
const READ_BYTES = 256 * 1024;

/**
 * A file as a web stream, read through a `FileHandle` on demand: opened at the first read,
 * closed at the end, on an error, or when the reader cancels. `Readable.toWeb(createReadStream())`
 * did this before, but on Node 20 a cancel (a client leaving a download, a reader that stops
 * early) could let the file stream emit one more chunk into the closed web stream: an
 * `ERR_INVALID_STATE` thrown from an event handler, which ended the process (issue #16).
 */
export function readFileStream(path: string): ReadableStream<Uint8Array> {
	let handle: FileHandle | null = null;
	let closed: Promise<void> | null = null;
	let cancelled = false;
	let position = 0;
	const close = () => {
		closed ??= handle ? handle.close().catch(() => {}) : Promise.resolve();
		return closed;
	};
	return new ReadableStream<Uint8Array>(
		{
			async pull(controller) {
				try {
					if (!handle) {
						const opened = await open(path, "r");
						if (cancelled) return void (await opened.close().catch(() => {}));
						handle = opened;
					}
					const buffer = new Uint8Array(READ_BYTES);
					const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, position);
					if (cancelled) return;
					if (bytesRead === 0) {
						await close();
						controller.close();
						return;
					}
					position += bytesRead;
					controller.enqueue(buffer.subarray(0, bytesRead));
				} catch (error) {
					await close();
					if (!cancelled) controller.error(error);
				}
			},
			cancel() {
				cancelled = true;
				return close();
			},
		},
		// Nothing is read before it is asked for: a stream nobody reads never opens the file.
		{ highWaterMark: 0 },
	);
}
