import assert from "node:assert/strict";
import {
  cidrSize,
  contains,
  firstHost,
  formatIPv4,
  ipv6NotSupported,
  isIPv6,
  isPrivate,
  overlaps,
  parseCidr,
  parseIPv4,
  prefixMask,
  remapAddress,
} from "./cidr.ts";

Deno.test("parseIPv4 accepts dotted quads and rejects odd strings", () => {
  assert.equal(parseIPv4("10.0.0.1"), 0x0a000001);
  assert.equal(parseIPv4("255.255.255.255"), 0xffffffff);
  assert.equal(parseIPv4(" 0.0.0.0 "), 0);
  for (
    const bad of [
      "",
      "abc",
      "1.2.3",
      "1.2.3.4.5",
      "256.0.0.1",
      "300.1.1.1",
      "010.0.0.1",
      "1.2.3.-4",
      "+1.2.3.4",
      "1..2.3",
      "1.2.3.4/8",
      "::1",
      "1.2.3.0x4",
      "１.2.3.4",
    ]
  ) {
    assert.equal(parseIPv4(bad), null, bad);
  }
  // deno-lint-ignore no-explicit-any
  assert.equal(parseIPv4(undefined as any), null);
});

Deno.test("formatIPv4 round-trips", () => {
  for (const s of ["0.0.0.0", "10.70.0.1", "192.168.255.254", "255.255.255.255"]) {
    assert.equal(formatIPv4(parseIPv4(s)!), s);
  }
});

Deno.test("parseCidr normalises host bits and rejects invalid input", () => {
  assert.deepEqual(parseCidr("10.0.0.0/16"), { base: 0x0a000000, prefix: 16, text: "10.0.0.0/16" });
  assert.equal(parseCidr("10.1.2.3/16")?.text, "10.1.0.0/16");
  assert.equal(parseCidr("0.0.0.0/0")?.text, "0.0.0.0/0");
  assert.equal(parseCidr("1.2.3.4/0")?.text, "0.0.0.0/0");
  assert.equal(parseCidr("1.2.3.4/32")?.text, "1.2.3.4/32");
  assert.equal(parseCidr(" 172.16.5.0/12 ")?.text, "172.16.0.0/12");
  for (
    const bad of [
      "10.0.0.0/33",
      "300.1.1.1/8",
      "",
      "abc",
      "10.0.0.0",
      "10.0.0.0/",
      "10.0.0.0/-1",
      "10.0.0.0/08",
      "10.0.0.0/1/2",
      "fd00::/64",
      "10.0.0.0/ 8",
      "/8",
    ]
  ) {
    assert.equal(parseCidr(bad), null, bad);
  }
});

Deno.test("prefixMask and cidrSize", () => {
  assert.equal(prefixMask(0), 0);
  assert.equal(prefixMask(8), 0xff000000);
  assert.equal(prefixMask(32), 0xffffffff);
  assert.equal(cidrSize(parseCidr("10.0.0.0/30")!), 4);
  assert.equal(cidrSize(parseCidr("0.0.0.0/0")!), 2 ** 32);
});

Deno.test("contains and overlaps", () => {
  assert.equal(contains("10.0.0.0/8", "10.255.1.1"), true);
  assert.equal(contains("10.0.0.0/8", "11.0.0.0"), false);
  assert.equal(contains("0.0.0.0/0", "1.2.3.4"), true);
  assert.equal(contains("1.2.3.4/32", "1.2.3.4"), true);
  assert.equal(contains(parseCidr("192.168.0.0/16")!, parseIPv4("192.168.3.3")!), true);
  assert.equal(contains("garbage", "1.2.3.4"), false);
  assert.equal(contains("10.0.0.0/8", "garbage"), false);
  assert.equal(contains("10.0.0.0/8", -1), false);
  assert.equal(overlaps("10.0.0.0/8", "10.1.0.0/16"), true);
  assert.equal(overlaps("10.1.0.0/16", "10.0.0.0/8"), true);
  assert.equal(overlaps("10.1.0.0/16", "10.2.0.0/16"), false);
  assert.equal(overlaps("0.0.0.0/0", "192.168.1.0/24"), true);
  assert.equal(overlaps("192.168.1.0/24", "192.168.1.128/25"), true);
  assert.equal(overlaps("bad", "10.0.0.0/8"), false);
});

Deno.test("remapAddress keeps host bits (RemapMask)", () => {
  assert.equal(remapAddress("10.244.3.7", "10.244.0.0/16", "10.71.0.0/16"), "10.71.3.7");
  assert.equal(remapAddress("10.244.3.7", "10.244.0.0/16", "10.71.5.5/16"), "10.71.3.7");
  assert.equal(remapAddress("10.244.3.7", "10.244.0.0/16", "10.244.0.0/16"), "10.244.3.7");
  assert.equal(remapAddress("192.168.1.1", "192.168.1.0/24", "10.0.0.0/24"), "10.0.0.1");
  assert.equal(remapAddress("11.0.0.1", "10.244.0.0/16", "10.71.0.0/16"), null, "outside fromCidr");
  assert.equal(remapAddress("10.244.3.7", "10.244.0.0/16", "10.71.0.0/24"), null, "prefix mismatch");
  assert.equal(remapAddress("nope", "10.244.0.0/16", "10.71.0.0/16"), null);
  assert.equal(remapAddress("10.244.3.7", "nope", "10.71.0.0/16"), null);
});

Deno.test("firstHost", () => {
  assert.equal(firstHost("10.70.0.0/16"), "10.70.0.1");
  assert.equal(firstHost("169.254.18.0/30"), "169.254.18.1");
  assert.equal(firstHost("10.0.0.4/31"), "10.0.0.4");
  assert.equal(firstHost("10.0.0.9/32"), "10.0.0.9");
  assert.equal(firstHost("x"), null);
});

Deno.test("isPrivate", () => {
  for (
    const ip of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "169.254.18.1",
    ]
  ) {
    assert.equal(isPrivate(ip), true, ip);
  }
  for (const ip of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "203.0.113.50", "192.169.0.1", "bad", "::1"]) {
    assert.equal(isPrivate(ip), false, ip);
  }
});

Deno.test("IPv6 input is recognised and never crashes", () => {
  for (const s of ["::1", "fd00::/64", "2001:db8::1", "[2001:db8::1]", "fe80::1%eth0", "::ffff:10.0.0.1"]) {
    assert.equal(isIPv6(s), true, s);
    assert.equal(parseIPv4(s), null);
    assert.equal(parseCidr(s), null);
    assert.equal(contains("10.0.0.0/8", s), false);
    assert.match(ipv6NotSupported(s)!, /^IPv6 not supported/);
  }
  for (const s of ["10.0.0.1", "abc", "", "1:2:3::4::5", "zz::1"]) {
    assert.equal(isIPv6(s), false, s);
    assert.equal(ipv6NotSupported(s), null);
  }
});
