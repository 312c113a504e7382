import { importPrivateKey } from "../../src/crypto/index.ts";
import { testIdentity } from "./certs.ts";

/** alice sends, bob receives: key handles ready for pack() and unpack(). */
export function parties() {
	const alice = testIdentity("alice");
	const bob = testIdentity("bob");
	return {
		alice,
		bob,
		aliceSigner: { privateKey: importPrivateKey(alice.keyPem), certificate: alice.certDer },
		bobIdentity: { privateKey: importPrivateKey(bob.keyPem), certificate: bob.certDer },
	};
}
