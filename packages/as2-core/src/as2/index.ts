export { formatAs2Id, parseAs2Id } from "./as2-id.ts";
export { type Entity, serializeEntity } from "./entity.ts";
export type { SignatureVariant } from "./line-ending-variants.ts";
export { type MdnRequest, readMdnRequest } from "./mdn-request.ts";
export { createMessageId, formatMessageId, stripMessageId } from "./message-id.ts";
export { formatMic, type Mic, micEquals, micFromDigest, parseMic } from "./mic.ts";
export {
	formatNotificationOptions,
	type NotificationOptions,
	parseNotificationOptions,
} from "./notification-options.ts";
export {
	type PackEncryptOptions,
	type PackMdnOptions,
	type PackOptions,
	type PackResult,
	type PackSignOptions,
	pack,
} from "./pack.ts";
export {
	type HeaderInput,
	type Layer,
	type UnpackedMessage,
	type UnpackOptions,
	type UnpackReport,
	unpack,
} from "./unpack.ts";
