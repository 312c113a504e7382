export { ByteReader, indexOfBytes } from "./byte-reader.ts";
export {
	BUFFERED_MAX_BYTES,
	type ByteSource,
	bufferedBytes,
	type Chunks,
	checkedOpen,
	chunksOf,
	concatSources,
	inMemoryIfSmall,
	sourceFromBytes,
	toChunks,
	toReadableStream,
} from "./byte-source.ts";
export {
	collect,
	concatBytes,
	equalBytes,
	fromBase64,
	fromHex,
	fromLatin1,
	fromUtf8,
	joinLatin1,
	latin1,
	plainBytes,
	toBase64,
	toHex,
	utf8,
} from "./bytes.ts";
