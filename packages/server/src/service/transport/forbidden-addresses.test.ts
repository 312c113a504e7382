import { describe, expect, it } from "vitest";
import { ipLiteral, isForbiddenAddress, isLocalName } from "./forbidden-addresses.ts";

describe("isForbiddenAddress", () => {
	it.each([
		["127.0.0.1", "loopback"],
		["127.255.255.254", "loopback"],
		["0.0.0.0", "this host"],
		["10.1.2.3", "private"],
		["100.64.0.1", "carrier-grade NAT"],
		["100.127.255.255", "carrier-grade NAT"],
		["169.254.169.254", "cloud metadata"],
		["172.16.0.1", "private"],
		["172.31.255.255", "private"],
		["192.0.0.170", "IETF assignments"],
		["192.168.1.1", "private"],
		["198.18.0.1", "benchmarking"],
		["224.0.0.1", "multicast"],
		["239.255.255.250", "multicast (SSDP)"],
		["240.0.0.1", "reserved"],
		["255.255.255.255", "broadcast"],
		["::", "unspecified"],
		["::1", "loopback"],
		["::127.0.0.1", "IPv4-compatible"],
		["::ffff:127.0.0.1", "IPv4-mapped loopback"],
		["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
		["::ffff:10.0.0.1", "IPv4-mapped private"],
		["::ffff:169.254.169.254", "IPv4-mapped metadata"],
		["64:ff9b::7f00:1", "NAT64 of loopback"],
		["64:ff9b::10.0.0.1", "NAT64 of private"],
		["64:ff9b:1::1", "local-use NAT64"],
		["2002:7f00:1::1", "6to4 of loopback"],
		["2002:a9fe:a9fe::1", "6to4 of metadata"],
		["fc00::1", "unique local"],
		["fd12:3456::1", "unique local"],
		["fe80::1", "link-local"],
		["fec0::1", "site-local"],
		["ff02::1", "multicast"],
	])("refuses %s (%s)", (address) => {
		expect(isForbiddenAddress(address)).toBe(true);
	});

	it.each([
		"93.184.216.34",
		"8.8.8.8",
		"100.63.255.255",
		"100.128.0.0",
		"172.32.0.1",
		"192.169.0.1",
		"2606:2800:220:1:248:1893:25c8:1946",
		"::ffff:93.184.216.34",
		"64:ff9b::5db8:d822",
		"2002:5db8:d822::1",
	])("lets public %s through", (address) => {
		expect(isForbiddenAddress(address)).toBe(false);
	});

	it("is false for what is not an IP literal (names are resolved first)", () => {
		expect(isForbiddenAddress("partner.example.com")).toBe(false);
	});
});

describe("ipLiteral and isLocalName", () => {
	it("reads IP literals as the URL parser leaves them", () => {
		expect(ipLiteral(new URL("https://2130706433/").hostname)).toBe("127.0.0.1");
		expect(ipLiteral(new URL("https://[::ffff:127.0.0.1]/").hostname)).toBe("::ffff:7f00:1");
		expect(ipLiteral("partner.example.com")).toBeNull();
	});

	it("knows the names of this machine (RFC 6761 §6.3)", () => {
		for (const name of ["localhost", "LOCALHOST.", "api.localhost"]) expect(isLocalName(name), name).toBe(true);
		expect(isLocalName("localhost.example.com")).toBe(false);
	});
});
