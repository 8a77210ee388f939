import { describe, expect, test } from "bun:test";
import { isPrivateAddress } from "./net";

describe("outbound address policy", () => {
  test("loopback, private, link-local, CGNAT, multicast and unspecified addresses are private", () => {
    for (const ip of ["127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "not an ip"]) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: true });
    }
  });

  test("public addresses are not", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: false });
    }
  });
});
