import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { API_01 } from "./api01.ts";
import { API_02 } from "./api02.ts";
import { overlay, runner, text } from "../../tests/support/controlplane_checks.ts";

// The in-band scenario test also runs API-01 on the healthy variant.
const run = runner([API_01, API_02]);

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
