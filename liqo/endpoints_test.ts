/** Endpoint hostnames and the first-address rule. */
import assert from "node:assert/strict";
import {
  dialsOnlyFirstAddress,
  hostnameBeforeIp,
  hostnamesOf,
  isHostname,
  parseLiqoVersion,
} from "./endpoints.ts";

Deno.test("isHostname: names, not IP literals nor empty addresses", () => {
  assert.equal(isHostname("gw.milan.example.net"), true);
  assert.equal(isHostname("k8s-abc.elb.eu-west-1.amazonaws.com"), true);
  assert.equal(isHostname("localhost"), true);
  assert.equal(isHostname("203.0.113.50"), false);
  assert.equal(isHostname("2001:db8::1"), false);
  assert.equal(isHostname(""), false);
  assert.deepEqual(hostnamesOf({ addresses: ["1.2.3.4", "a.example"], port: 1 }), ["a.example"]);
});

Deno.test("hostnameBeforeIp: only a name first with IPs after it", () => {
  assert.deepEqual(hostnameBeforeIp({ addresses: ["gw.example.net", "203.0.113.50"], port: 51840 }), {
    hostname: "gw.example.net",
    ips: ["203.0.113.50"],
  });
  assert.equal(hostnameBeforeIp({ addresses: ["203.0.113.50", "gw.example.net"], port: 51840 }), null);
  assert.equal(hostnameBeforeIp({ addresses: ["gw.example.net"], port: 51840 }), null);
  assert.equal(hostnameBeforeIp({ addresses: ["gw.example.net", "other.example.net"], port: 51840 }), null);
  assert.equal(hostnameBeforeIp(null), null);
});

Deno.test("dialsOnlyFirstAddress: certain before v1.2, unknown without a version", () => {
  assert.deepEqual(parseLiqoVersion("v1.1.2"), { major: 1, minor: 1 });
  assert.deepEqual(parseLiqoVersion("1.2.0-rc.1"), { major: 1, minor: 2 });
  assert.equal(parseLiqoVersion("latest"), null);
  assert.equal(dialsOnlyFirstAddress("v1.1.2"), true);
  assert.equal(dialsOnlyFirstAddress("v1.0.3"), true);
  assert.equal(dialsOnlyFirstAddress("v0.10.3"), true);
  assert.equal(dialsOnlyFirstAddress("v1.2.0"), false);
  assert.equal(dialsOnlyFirstAddress("v2.0.0"), false);
  assert.equal(dialsOnlyFirstAddress(null), null);
});
