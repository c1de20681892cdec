/** DNS resolution of endpoint hostnames from the tool's host. */
import assert from "node:assert/strict";
import { DNS_PERMISSION_DENIED, type DnsResolver, resolveHost } from "./dns.ts";

const OPTS = { timeoutMs: 500 };

Deno.test("resolveHost: A and AAAA answers are merged", async () => {
  const r: DnsResolver = (_h, type) => Promise.resolve(type === "A" ? ["203.0.113.50"] : ["2001:db8::5"]);
  assert.deepEqual(await resolveHost("gw.example.net", OPTS, r), {
    outcome: "resolved",
    addresses: ["203.0.113.50", "2001:db8::5"],
    detail: "resolves to 203.0.113.50, 2001:db8::5",
  });
});

Deno.test("resolveHost: no record is not-found, one answering type is enough", async () => {
  const nx: DnsResolver = () =>
    Promise.reject(new Deno.errors.NotFound("proto error: no records found for Query"));
  const r = await resolveHost("nope.example.net", OPTS, nx);
  assert.equal(r.outcome, "not-found");
  assert.match(r.detail, /no records found/);
  const v4only: DnsResolver = (_h, type) =>
    type === "A"
      ? Promise.resolve(["198.51.100.7"])
      : Promise.reject(new Deno.errors.NotFound("no records found"));
  assert.equal((await resolveHost("gw.example.net", OPTS, v4only)).outcome, "resolved");
});

Deno.test("resolveHost: a denied permission names --allow-net and never throws", async () => {
  const denied: DnsResolver = () =>
    Promise.reject(
      new Deno.errors.NotCapable(
        'Requires net access to "10.0.0.53:53", run again with the --allow-net flag',
      ),
    );
  const r = await resolveHost("gw.example.net", OPTS, denied);
  assert.equal(r.outcome, "unavailable");
  assert.ok(r.detail.startsWith(DNS_PERMISSION_DENIED), r.detail);
  assert.match(r.detail, /--allow-net/);
  // the real resolver under this test run's --allow-net=127.0.0.1,localhost: the nameserver is not
  // granted (or, with a local stub resolver, the .invalid name does not exist) — never a throw
  const real = await resolveHost("flyingfish-test.invalid", { timeoutMs: 2000 });
  assert.notEqual(real.outcome, "resolved");
  if (real.outcome === "unavailable" && real.detail.startsWith(DNS_PERMISSION_DENIED)) {
    assert.match(real.detail, /--allow-net/);
  }
});

Deno.test("resolveHost: timeout and other failures are unavailable", async () => {
  const hang: DnsResolver = (_h, _t, o) =>
    new Promise((_, reject) => o.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
  const r = await resolveHost("slow.example.net", { timeoutMs: 20 }, hang);
  assert.deepEqual(r, { outcome: "unavailable", detail: "DNS timeout after 20 ms" });
  const broken: DnsResolver = () => Promise.reject(new Error("connection refused"));
  assert.deepEqual(await resolveHost("x.example.net", OPTS, broken), {
    outcome: "unavailable",
    detail: "DNS query failed: connection refused",
  });
});
