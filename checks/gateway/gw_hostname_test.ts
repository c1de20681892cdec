/** GW-03 / GW-04 / GW-05 with endpoints given as hostnames (a hostname listed before an IP, resolution from here). */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import type { ProbeHub, ResolveResult } from "../../probes/hub.ts";
import { find, scriptedProbes } from "../../tests/support/fixtures.ts";
import { milan, MILAN_NS, rome, ROME_NS, run, text } from "../../tests/support/gateway_checks.ts";

const HOST = "gw.milan.example.net";

/** milan advertises HOST before its LB IP (ingress [{hostname}, {ip}]), on a given Liqo version. */
async function milanHostFirst(version = "v1.2.0"): Promise<K8sObject[]> {
  const m = await milan();
  find(m, "Service", "gw-rome-4b2a9e", MILAN_NS).status.loadBalancer.ingress = [{ hostname: HOST }, {
    ip: "203.0.113.50",
  }];
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = [HOST, "203.0.113.50"];
  setVersion(m, version);
  return m;
}

/** rome's GatewayClient (and its Deployment args) dial HOST first, on a given Liqo version. */
async function romeHostFirst(version = "v1.2.0"): Promise<K8sObject[]> {
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = [HOST, "203.0.113.50"];
  const dep = find(r, "Deployment", "gw-milan-8d1f03", ROME_NS);
  const wg = dep.spec.template.spec.containers.find((c: { name: string }) => c.name === "wireguard");
  wg.args = wg.args.map((a: string) =>
    a.startsWith("--endpoint-address=") ? `--endpoint-address=${HOST}` : a
  );
  setVersion(r, version);
  return r;
}

function setVersion(objs: K8sObject[], version: string): void {
  const cm = find(objs, "Deployment", "liqo-controller-manager", "liqo");
  for (const c of cm.spec.template.spec.containers) {
    if (c.name === "controller-manager") c.image = `ghcr.io/liqotech/liqo-controller-manager:${version}`;
  }
}

function resolving(r: ResolveResult): ProbeHub {
  return { ...scriptedProbes(), resolve: () => Promise.resolve(r) };
}

Deno.test("GW-03: a hostname before an IP warns on Liqo before v1.2 (one kubeconfig)", async () => {
  const o = await run("GW-03", await milanHostFirst("v1.1.2"));
  assert.equal(o.status, "warn");
  assert.match(
    o.summary,
    new RegExp(`the hostname ${HOST.replaceAll(".", "\\.")} is listed before 203\\.0\\.113\\.50`),
  );
  assert.match(o.summary, /Liqo v1\.1\.2 is before v1\.2 and dials only the first address/);
  assert.match(
    text(o),
    /advertised address gw\.milan\.example\.net is a hostname: not resolved \(network probes off\)/,
  );
  assert.match(fixText(o.remediation), /nslookup gw\.milan\.example\.net/);
  assert.match(fixText(o.remediation), /--gw-client-address 203\.0\.113\.50/);
});

Deno.test("GW-03: the same on v1.2 passes with the fact as evidence; with both kubeconfigs GW-04 judges it", async () => {
  let o = await run("GW-03", await milanHostFirst("v1.2.0"));
  assert.equal(o.status, "pass");
  assert.match(text(o), /is v1\.2 or later/);
  o = await run("GW-03", await milanHostFirst("v1.1.2"), { remote: await romeHostFirst("v1.1.2") });
  assert.equal(o.status, "pass");
  assert.match(text(o), /judged by GW-04/);
  // an IP first, or a hostname alone (AWS NLB), is no risk at all
  const m = await milan();
  setVersion(m, "v1.1.2");
  assert.equal((await run("GW-03", m)).status, "pass");
});

Deno.test("GW-03: resolution from here — resolved, not found, permission denied", async () => {
  const m = await milanHostFirst("v1.2.0");
  let o = await run("GW-03", m, {
    networkProbes: true,
    probes: resolving({ outcome: "resolved", addresses: ["203.0.113.50"], detail: "" }),
  });
  assert.match(text(o), /gw\.milan\.example\.net is a hostname: resolves from here to 203\.0\.113\.50/);
  o = await run("GW-03", m, {
    networkProbes: true,
    probes: resolving({ outcome: "not-found", detail: "no records found" }),
  });
  assert.match(text(o), /does NOT resolve from here \(no records found\)/);
  o = await run("GW-03", m, {
    networkProbes: true,
    probes: resolving({
      outcome: "unavailable",
      detail:
        "no permission to query DNS (Requires net access): grant --allow-net to resolve endpoint hostnames",
    }),
  });
  assert.equal(o.status, "pass");
  assert.match(text(o), /not resolved from here: no permission to query DNS.*--allow-net/);
  // a hub without a resolver (written before it existed) is not a crash either
  o = await run("GW-03", m, { networkProbes: true, probes: scriptedProbes() });
  assert.match(text(o), /not resolved \(no resolver in this run\)/);
  // a resolver that throws is an evidence line
  o = await run("GW-03", m, {
    networkProbes: true,
    probes: {
      ...scriptedProbes(),
      resolve: () => Promise.reject(new Deno.errors.NotCapable("Requires net access")),
    },
  });
  assert.match(text(o), /DNS query failed: Requires net access/);
});

Deno.test("GW-04: a client before v1.2 dialling a hostname first warns with the client's version", async () => {
  const o = await run("GW-04", await romeHostFirst("v1.1.2"), { remote: await milanHostFirst("v1.1.2") });
  assert.equal(o.status, "warn");
  assert.match(o.summary, /client dials gw\.milan\.example\.net:51840, which the server advertises, but/);
  assert.match(o.summary, /Liqo v1\.1\.2 is before v1\.2 and dials only the first address/);
  assert.match(text(o), /rome-4b2a9e dials gw\.milan\.example\.net is a hostname/);
  assert.match(fixText(o.remediation), /kubectl -n liqo-tenant-milan-8d1f03 run dns-check/);
  const ok = await run("GW-04", await romeHostFirst("v1.2.0"), { remote: await milanHostFirst("v1.2.0") });
  assert.equal(ok.status, "pass");
  assert.match(text(ok), /is v1\.2 or later/);
});

Deno.test("GW-05: a hostname endpoint is resolved from here as evidence; the tunnel-up rule stands", async () => {
  const r = await romeHostFirst("v1.2.0");
  const probes: ProbeHub = {
    ...scriptedProbes({ udp: () => ({ outcome: "silence", detail: "no reply" }) }),
    resolve: () => Promise.resolve({ outcome: "not-found", detail: "no records found" }),
  };
  const o = await run("GW-05", r, { networkProbes: true, probes });
  // rome's Connection is Connected and fresh: the tunnel is up, whatever this host sees
  assert.equal(o.status, "pass");
  assert.match(text(o), /the endpoint gw\.milan\.example\.net is a hostname: does NOT resolve from here/);
});
