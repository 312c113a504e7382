// The work of one message on each side of `scenario.mjs` (issue #20), counted rather than
// timed, so the figures do not depend on the machine's load: bytes hashed and hash objects,
// RSA operations, cipher and zlib objects, key objects made, typed arrays allocated.
// node:crypto and node:zlib are wrapped before as2-core is loaded (syncBuiltinESMExports
// carries the wrappers into its named imports).
//
//   npm run build -w @as2kit/core && node packages/as2-core/bench/per-message-counts.mjs [keydir]
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import zlib from "node:zlib";

const counts = new Map();
const add = (name, n = 1) => counts.set(name, (counts.get(name) ?? 0) + n);

const hashPrototype = Object.getPrototypeOf(crypto.createHash("sha256"));
const hashUpdate = hashPrototype.update;
hashPrototype.update = function (data, ...rest) {
	add("bytes hashed", typeof data === "string" ? Buffer.byteLength(data) : data.byteLength);
	return hashUpdate.call(this, data, ...rest);
};
const wrap = (module, name, label, measure) => {
	const original = module[name];
	// Some of node:zlib's exports are read-only but configurable.
	Object.defineProperty(module, name, {
		configurable: true,
		writable: true,
		value: function (...args) {
			add(label);
			if (measure) add(measure.label, measure.of(args));
			return new.target ? new original(...args) : original.apply(this, args);
		},
	});
};
wrap(crypto, "createHash", "hash objects");
wrap(crypto, "hash", "one-shot hashes", { label: "bytes hashed", of: (args) => args[1].byteLength });
wrap(crypto, "sign", "RSA private: sign");
wrap(crypto, "createSign", "RSA private: streamed signers");
wrap(crypto, "privateDecrypt", "RSA private: decrypt");
wrap(crypto, "publicEncrypt", "RSA public: encrypt");
wrap(crypto, "publicDecrypt", "RSA public: decrypt");
wrap(crypto, "createCipheriv", "cipher objects");
wrap(crypto, "createDecipheriv", "cipher objects");
wrap(crypto, "createPublicKey", "key objects made");
wrap(crypto, "createPrivateKey", "key objects made");
wrap(crypto, "X509Certificate", "X509Certificate parsed");
wrap(crypto, "randomBytes", "randomBytes calls");
for (const name of ["deflateSync", "inflateSync", "createDeflate", "createInflate"]) wrap(zlib, name, `zlib: ${name}`);
wrap(Buffer, "concat", "Buffer.concat calls");
syncBuiltinESMExports();
// Arrays the core allocates itself (`new Uint8Array(n)`, copies, `Uint8Array.of/from`): each is
// a backing store to allocate and later collect. Views (`new Uint8Array(buffer, offset, length)`)
// and node:buffer's own allocations are not counted (node's internals keep the original class).
globalThis.Uint8Array = new Proxy(Uint8Array, {
	construct(target, args, newTarget) {
		const [first] = args;
		if (!(first instanceof ArrayBuffer || first instanceof SharedArrayBuffer)) {
			const array = Reflect.construct(target, args, newTarget);
			add("Uint8Arrays allocated");
			add("Uint8Array bytes allocated", array.byteLength);
			return array;
		}
		return Reflect.construct(target, args, newTarget);
	},
});

const { scenario, withKeys } = await import("./scenario.mjs");
const MESSAGES = 200;

await withKeys(process.argv[2], async (dir) => {
	const { send, receive, readReceipt } = scenario(dir);
	for (let i = 0; i < 20; i++) {
		const sent = await send();
		await readReceipt(sent, await receive(sent));
	}
	const sides = { sender: new Map(), receiver: new Map() };
	const into = async (side, work) => {
		counts.clear();
		const result = await work();
		for (const [name, n] of counts) sides[side].set(name, (sides[side].get(name) ?? 0) + n);
		return result;
	};
	for (let i = 0; i < MESSAGES; i++) {
		const sent = await into("sender", send);
		const mdn = await into("receiver", () => receive(sent));
		await into("sender", () => readReceipt(sent, mdn));
	}
	const names = [...new Set([...sides.sender.keys(), ...sides.receiver.keys()])].sort();
	console.log(`Work per message (${MESSAGES} messages)\n| | sender | receiver |\n|---|---:|---:|`);
	const per = (side, name) => {
		const n = (sides[side].get(name) ?? 0) / MESSAGES;
		return Number.isInteger(n) ? String(n) : n.toFixed(2);
	};
	for (const name of names) console.log(`| ${name} | ${per("sender", name)} | ${per("receiver", name)} |`);
});
