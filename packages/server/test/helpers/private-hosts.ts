/**
 * Every way of writing a private host that partner URLs were found to accept (issue #16,
 * defect 4), as URL hosts. `loopback` ones lead to this machine, so a test can point them at
 * a listener on 127.0.0.1 that counts connections; the others must only ever be refused.
 */
export const PRIVATE_HOSTS: ReadonlyArray<{ host: string; loopback: boolean }> = [
	{ host: "127.0.0.1", loopback: true },
	{ host: "localhost", loopback: true },
	{ host: "LocalHost.", loopback: true },
	{ host: "as2.localhost", loopback: true },
	{ host: "[::1]", loopback: true },
	{ host: "[::ffff:127.0.0.1]", loopback: true },
	{ host: "[0:0:0:0:0:ffff:7f00:1]", loopback: true },
	{ host: "2130706433", loopback: true },
	{ host: "0x7f000001", loopback: true },
	{ host: "0177.0.0.1", loopback: true },
	{ host: "127.1", loopback: true },
	{ host: "0", loopback: true },
	{ host: "0.0.0.0", loopback: true },
	{ host: "[::]", loopback: true },
	{ host: "169.254.169.254", loopback: false },
	{ host: "10.0.0.1", loopback: false },
	{ host: "172.16.5.4", loopback: false },
	{ host: "192.168.0.1", loopback: false },
	{ host: "100.64.0.1", loopback: false },
	{ host: "224.0.0.251", loopback: false },
	{ host: "[fe80::1]", loopback: false },
	{ host: "[fd00::1]", loopback: false },
	{ host: "[64:ff9b::a9fe:a9fe]", loopback: false },
];
