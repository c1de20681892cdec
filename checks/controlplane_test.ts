import assert from "node:assert/strict";
import { CONTROLPLANE_CHECKS } from "./controlplane.ts";
import type { CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { TlsDialResult } from "../probes/hub.ts";
import {
  baseObjects,
  contextOf,
  find,
  inventoryOf,
  parseObjects,
  peersOf,
  scriptedProbes,
  viewOf,
} from "../tests/support/fixtures.ts";

const check = (id: string): CheckDef => CONTROLPLANE_CHECKS.find((c) => c.id === id)!;

async function run(
  id: string,
  objects: K8sObject[],
  opts: { remote?: K8sObject[]; tls?: TlsDialResult; probes?: boolean } = {},
): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects));
  const remote = opts.remote ? viewOf(inventoryOf(opts.remote)) : null;
  const peer = peersOf(view)[0];
  const remotePeer = remote ? peersOf(remote)[0] ?? null : null;
  const probes = scriptedProbes(opts.tls ? { tls: () => opts.tls! } : {});
  return await check(id).run(
    contextOf(view, { peer, remote, remotePeer, probes, options: { networkProbes: opts.probes ?? false } }),
  );
}

const text = (o: Outcome): string => [o.summary, ...(o.evidence ?? []), o.remediation ?? ""].join("\n");

async function scenarioObjects(name: string, cluster: string): Promise<K8sObject[]> {
  const url = new URL(`../testdata/scenarios/${name}/${cluster}.objects.yaml`, import.meta.url);
  return parseObjects(await Deno.readTextFile(url));
}

/** Base objects with scenario overlay objects replacing same kind/namespace/name. */
async function overlay(base: "rome" | "milan", scenario: string): Promise<K8sObject[]> {
  const objs = await baseObjects(base);
  for (const o of await scenarioObjects(scenario, base)) {
    const i = objs.findIndex((x) =>
      x.kind === o.kind && x.metadata.name === o.metadata.name &&
      x.metadata.namespace === o.metadata.namespace
    );
    if (i >= 0) objs[i] = o;
    else objs.push(o);
  }
  return objs;
}

// deno-lint-ignore no-explicit-any
function fcCondition(objs: K8sObject[], fcName: string, module: string | null, type: string): any {
  const fc = find(objs, "ForeignCluster", fcName);
  // deno-lint-ignore no-explicit-any
  const list: any[] = module ? fc.status.modules[module].conditions : fc.status.conditions;
  return list.find((c) => c.type === type);
}

// ---------------------------------------------------------------------------------------------
// FC-01

Deno.test("FC-01 passes on both bases with module evidence", async () => {
  const rome = await run("FC-01", await baseObjects("rome"));
  assert.equal(rome.status, "pass");
  assert.match(text(rome), /peering age 23m54s, role Provider/);
  assert.match(
    text(rome),
    /networking: NetworkConnectionStatus=Established \(ConnectionEstablished\) for 23m16s/,
  );
  const milan = await run("FC-01", await baseObjects("milan"));
  assert.equal(milan.status, "pass");
  assert.match(text(milan), /offloading: disabled/);
});

Deno.test("FC-01 fails on an unhealthy authentication condition", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", "authentication", "AuthIdentityControlPlaneStatus"), {
    status: "NotReady",
    reason: "IdentityNotReady",
    message: "The identity is not ready",
    lastTransitionTime: "2026-11-30T02:24:00Z",
  });
  const o = await run("FC-01", objs);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /AuthIdentityControlPlaneStatus=NotReady \(IdentityNotReady\) for 6m0s: The identity is not ready/,
  );
  assert.match(o.remediation!, /get identities -l liqo\.io\/remote-cluster-id=milan-8d1f03/);

  const milan = await baseObjects("milan");
  fcCondition(milan, "rome-4b2a9e", "authentication", "AuthTenantStatus").status = "NotReady";
  const p = await run("FC-01", milan);
  assert.equal(p.status, "fail");
  assert.match(p.remediation!, /get tenant/);
});

Deno.test("FC-01 warns on networking/offloading conditions, pointing at the judging check", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", "networking", "NetworkConnectionStatus"), {
    status: "Error",
    reason: "ConnectionError",
    lastTransitionTime: "2026-11-30T02:18:00Z",
  });
  fcCondition(objs, "milan-8d1f03", "offloading", "OffloadingNodeStatus").status = "NotReady";
  const o = await run("FC-01", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /NetworkConnectionStatus=Error \(ConnectionError\) for 12m0s → see TUN-01/);
  assert.match(o.summary, /OffloadingNodeStatus=NotReady .* → see REF-02/);
});

Deno.test("FC-01 is unknown without module status", async () => {
  const objs = await baseObjects("rome");
  delete find(objs, "ForeignCluster", "milan-8d1f03").status;
  assert.equal((await run("FC-01", objs)).status, "unknown");
});

// ---------------------------------------------------------------------------------------------
// API-01

Deno.test("API-01 passes on the consumer and skips on the provider", async () => {
  const o = await run("API-01", await baseObjects("rome"));
  assert.equal(o.status, "pass");
  assert.match(text(o), /not dialled from here: network probes disabled/);
  const p = await run("API-01", await baseObjects("milan"));
  assert.equal(p.status, "skip");
  assert.match(p.summary, /does not consume this peer's API/);
});

Deno.test("API-01 fails on APIServerStatus=Error, saying whether it is reachable from here", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", null, "APIServerStatus"), {
    status: "Error",
    reason: "APIServerNotReady",
  });
  let o = await run("API-01", objs, { probes: true, tls: { outcome: "ok", detail: "TLS 1.3", ms: 12 } });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /reachable from here but not from the cluster/);
  o = await run("API-01", objs, { probes: true, tls: { outcome: "failed", detail: "connection refused" } });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /not reachable from the cluster/);
  assert.match(text(o), /from here: https:\/\/203\.0\.113\.20:6443 not reachable: connection refused/);
  assert.match(o.remediation!, /--in-band/);
});

Deno.test("API-01 passes when reachable from the cluster but not from here", async () => {
  const o = await run("API-01", await baseObjects("rome"), {
    probes: true,
    tls: { outcome: "failed", detail: "timeout" },
  });
  assert.equal(o.status, "pass");
  assert.match(o.summary, /reachable from the cluster but not from here/);
  const u = await run("API-01", await baseObjects("rome"), {
    probes: true,
    tls: { outcome: "unavailable", detail: "permission denied" },
  });
  assert.match(text(u), /not dialled from here: permission denied/);
});

Deno.test("API-01 is unknown without the APIServerStatus condition", async () => {
  const objs = await baseObjects("rome");
  find(objs, "ForeignCluster", "milan-8d1f03").status.conditions = [];
  assert.equal((await run("API-01", objs)).status, "unknown");
});

// ---------------------------------------------------------------------------------------------
// API-02

async function inBand(): Promise<{ rome: K8sObject[]; milan: K8sObject[] }> {
  const rome = await baseObjects("rome");
  const milan = await baseObjects("milan");
  const milanProxyIp = find(milan, "IP", "api-server-proxy", "liqo").status.ip as string;
  const cfg = find(rome, "Configuration", "milan-8d1f03");
  const spec = cfg.spec.remote.cidr.external[0] as string,
    status = cfg.status.remote.cidr.external[0] as string;
  // translate: keep host bits of the proxy IP, use the network bits of the remapped CIDR (same prefix)
  const prefix = Number(spec.split("/")[1]);
  const toInt = (ip: string) => ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const n = ((toInt(status.split("/")[0]) & mask) | (toInt(milanProxyIp) & ~mask)) >>> 0;
  const host = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
  find(rome, "ForeignCluster", "milan-8d1f03").status.foreignProxyUrl = `http://${host}:8118`;
  find(milan, "Tenant", "rome-4b2a9e").spec.proxyURL = `http://${host}:8118`;
  return { rome, milan };
}

Deno.test("API-02 skips out-of-band peerings", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run("API-02", await baseObjects(c));
    assert.equal(o.status, "skip");
    assert.match(o.summary, /out-of-band/);
  }
});

Deno.test("API-02 consumer: URL inside the remapped external CIDR on 8118, exact translation in dual mode", async () => {
  const { rome, milan } = await inBand();
  let o = await run("API-02", rome);
  assert.equal(o.status, "pass", text(o));
  o = await run("API-02", rome, { remote: milan });
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /remapped = .* = URL host/);

  find(rome, "ForeignCluster", "milan-8d1f03").status.foreignProxyUrl = "http://192.0.2.7:8080";
  o = await run("API-02", rome);
  assert.equal(o.status, "fail");
  assert.match(text(o), /port 8080, liqo-proxy listens on 8118/);
  assert.match(text(o), /host 192\.0\.2\.7 is not inside the remapped external CIDR/);
});

Deno.test("API-02 dual: a wrong host inside the CIDR is caught by the translation", async () => {
  const { rome, milan } = await inBand();
  const fc = find(rome, "ForeignCluster", "milan-8d1f03");
  const u = new URL(fc.status.foreignProxyUrl);
  const parts = u.hostname.split(".");
  parts[3] = String((Number(parts[3]) + 1) % 255);
  fc.status.foreignProxyUrl = `http://${parts.join(".")}:8118`;
  const o = await run("API-02", rome, { remote: milan });
  assert.equal(o.status, "fail");
  assert.match(text(o), /≠ provider proxy IP/);
});

Deno.test("API-02 scenario cp-inband-proxy-wrong-address: un-remapped host fails, the translated one passes", async () => {
  const rome = await overlay("rome", "cp-inband-proxy-wrong-address");
  const milan = await overlay("milan", "cp-inband-proxy-wrong-address");
  let o = await run("API-02", rome, { remote: milan });
  assert.equal(o.status, "fail", text(o));
  assert.match(o.summary, /host 10\.70\.0\.2 is not inside the remapped external CIDR 10\.72\.0\.0\/16/);
  assert.match(text(o), /APIServerStatus=Error/);
  assert.match(text(o), /--proxy-url http:\/\/10\.72\.0\.2:8118/);
  // The same in-band peering with the URL liqoctl computes (healthy variant).
  const fc = find(rome, "ForeignCluster", "milan-8d1f03");
  fc.status.foreignProxyUrl = "http://10.72.0.2:8118";
  fc.status.conditions = [{ ...fc.status.conditions[0], status: "Established", reason: "APIServerReady" }];
  find(rome, "Identity", "controlplane-milan-8d1f03", "liqo-tenant-milan-8d1f03").spec.authParams.proxyURL =
    "http://10.72.0.2:8118";
  o = await run("API-02", rome, { remote: milan });
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /provider proxy IP 10\.70\.0\.2 remapped = 10\.72\.0\.2 = URL host/);
  assert.equal((await run("API-01", rome)).status, "pass");
});

Deno.test("API-01 needs API-02 (a broken in-band path explains APIServerStatus=Error)", () => {
  assert.deepEqual(check("API-01").needs, ["API-02"]);
});

Deno.test("API-02 provider: liqo-proxy ready and IP allocated", async () => {
  const { milan } = await inBand();
  assert.equal((await run("API-02", milan)).status, "pass");
  find(milan, "Deployment", "liqo-proxy", "liqo").status.readyReplicas = 0;
  delete find(milan, "IP", "api-server-proxy", "liqo").status;
  const o = await run("API-02", milan);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo-proxy 0\/1 ready/);
  assert.match(text(o), /IP liqo\/api-server-proxy has no status\.ip/);
});

// ---------------------------------------------------------------------------------------------
// API-03

Deno.test("API-03 passes on both bases", async () => {
  const rome = await run("API-03", await baseObjects("rome"));
  assert.equal(rome.status, "pass");
  assert.match(text(rome), /controlplane-milan-8d1f03 \(ControlPlane\): subject CN=rome-4b2a9e,O=liqo\.io/);
  const milan = await run("API-03", await baseObjects("milan"));
  assert.equal(milan.status, "pass");
  assert.match(text(milan), /Tenant liqo-tenant-rome-4b2a9e\/rome-4b2a9e issued/);
});

Deno.test("API-03 warns under 30 days and fails when expired", async () => {
  const expiring = await run("API-03", await overlay("rome", "cp-identity-expiring"));
  assert.equal(expiring.status, "warn");
  assert.match(expiring.summary, /notAfter 2026-12-10T02:08:54\.000Z, 9 days left/);
  const expired = await run("API-03", await overlay("rome", "cp-identity-expired"));
  assert.equal(expired.status, "fail");
  assert.match(expired.summary, /expired 3d0h ago/);
  assert.match(expired.remediation!, /renews/);
});

Deno.test("API-03 fails on a cordoned/drained Tenant and on a Denied ResourceSlice", async () => {
  const milan = await baseObjects("milan");
  find(milan, "Tenant", "rome-4b2a9e").spec.tenantCondition = "Drained";
  let o = await run("API-03", milan);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /tenantCondition Drained/);
  assert.match(o.remediation!, /liqoctl uncordon tenant rome-4b2a9e/);

  const rome = await baseObjects("rome");
  Object.assign(find(rome, "ResourceSlice", "milan-8d1f03").status.conditions[1], {
    status: "Denied",
    reason: "ResourceSliceResourcesDenied",
  });
  o = await run("API-03", rome);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Resources=Denied \(ResourceSliceResourcesDenied\)/);
});

Deno.test("API-03 skips without Identity or Tenant and is unknown on garbage certificates", async () => {
  const none = (await baseObjects("milan")).filter((o) => o.kind !== "Tenant");
  assert.equal((await run("API-03", none)).status, "skip");
  const rome = await baseObjects("rome");
  find(rome, "Identity", "controlplane-milan-8d1f03").spec.authParams.signedCRT = "bm90IGEgY2VydA==";
  const o = await run("API-03", rome);
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /certificate unreadable/);
});

Deno.test("CONTROLPLANE catalog entries are well formed", () => {
  for (const c of CONTROLPLANE_CHECKS) {
    assert.equal(c.layer, "controlplane");
    assert.equal(c.perPeer, true);
    assert.ok(c.explain.reads && c.explain.decides && c.explain.fixes, c.id);
  }
});
