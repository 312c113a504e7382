import { open } from "node:fs/promises";

/** Payload files are readable by the service's own user only (issue #16: files at rest). */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Chunks gathered while a write runs; past this, `write` waits for the disk. */
const HIGH_WATER_BYTES = 1024 * 1024;

export interface FileSink {
	/** Queues a chunk; resolves at once, or after the write in flight when a lot is queued. */
	write(chunk: Uint8Array): Promise<void>;
	/** Writes what is queued and closes the file; rejects with the first write error. */
	close(): Promise<void>;
	/** Drops what is queued, waits for the write in flight and closes the file. Never rejects. */
	abandon(): Promise<void>;
}

/**
 * A new file (`wx`, mode 0600) written through a `FileHandle`: the chunks that arrive while
 * one `writev` runs go out together in the next, so reading the source and writing the disk
 * overlap. There is no stream and no event emitter here on purpose: a failed write is a
 * rejected promise the caller awaits, and giving up (`abandon`) waits for the write in flight
 * before closing — a `fs.WriteStream` destroyed mid-write emitted an `'error'` nobody listened
 * to and ended the process (issue #16, defect 1).
 */
export async function openFileSink(path: string): Promise<FileSink> {
	const handle = await open(path, "wx", PRIVATE_FILE_MODE);
	let queue: Uint8Array[] = [];
	let queuedBytes = 0;
	let inFlight: Promise<void> | null = null;
	let failure: { error: unknown } | null = null;
	let closed = false;

	const flush = () => {
		if (inFlight || queue.length === 0 || failure || closed) return;
		const batch = queue;
		const size = queuedBytes;
		queue = [];
		queuedBytes = 0;
		inFlight = handle
			.writev(batch)
			.then(
				({ bytesWritten }) => {
					if (bytesWritten !== size) failure = { error: new Error(`short write: ${bytesWritten} of ${size} bytes`) };
				},
				(error: unknown) => {
					failure = { error };
				},
			)
			.finally(() => {
				inFlight = null;
				flush();
			});
	};
	const idle = async () => {
		while (inFlight) await inFlight;
	};
	const throwIfFailed = () => {
		if (failure) throw failure.error;
	};

	return {
		async write(chunk) {
			throwIfFailed();
			queue.push(chunk);
			queuedBytes += chunk.byteLength;
			flush();
			if (queuedBytes >= HIGH_WATER_BYTES) {
				await inFlight;
				throwIfFailed();
			}
		},
		async close() {
			await idle();
			closed = true;
			await handle.close();
			throwIfFailed();
		},
		async abandon() {
			closed = true;
			queue = [];
			await idle();
			await handle.close().catch(() => {});
		},
	};
}
