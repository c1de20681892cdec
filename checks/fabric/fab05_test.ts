import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_05 } from "./fab05.ts";

const run = (cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_05], "FAB-05", cluster, mutate);

/** A cluster's controller-manager image at another Liqo version. */
function atVersion(objs: K8sObject[], v: string): void {
  const cm = find(objs, "Deployment", "liqo-controller-manager");
  for (const c of cm.spec.template.spec.containers) c.image = c.image.replace(/:v[0-9.]+$/, `:${v}`);
}

Deno.test("FAB-05: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run(c);
    assert.equal(o.status, "pass", `${c}: ${o.summary}\n${(o.evidence ?? []).join("\n")}`);
  }
});

Deno.test("FAB-05: a node without its gw-ext rules fails although Applied=True, naming the v1.2.0 fix", async () => {
  const o = await run("rome", (objs) => {
    atVersion(objs, "v1.1.2");
    const rc = find(objs, "RouteConfiguration", "milan-8d1f03-gw-ext");
    rc.spec.table.rules = rc.spec.table.rules.filter((r: { iif: string }) => r.iif !== "liqo.2lgd9rbkqx");
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no rule for InternalNode rome-worker-2 \(iif liqo\.2lgd9rbkqx/);
  assert.match(o.summary, /Applied=True on gw-milan-8d1f03-7c9d5b6f8d-q4xzt: the applied content is stale/);
  assert.ok(o.evidence!.some((l) => /cb38ff7cd \(fixed in v1\.2\.0\)/.test(l)));
  assert.match(fixText(o.remediation), /delete routeconfiguration milan-8d1f03-gw-ext/);
});

Deno.test("FAB-05: a stale masquerade-bypass CIDR and a remap SNAT on the local pod CIDR fail", async () => {
  let o = await run("rome", (objs) => {
    const fw = find(objs, "FirewallConfiguration", "milan-8d1f03-masquerade-bypass");
    for (const r of fw.spec.table.chains[0].rules.natRules) {
      for (const m of r.match) if (m.ip?.value === "10.71.0.0/16") m.ip.value = "10.73.0.0/16";
    }
  });
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /masquerade-bypass is stale .*rules toward 10\.73\.0\.0\/16.*no rule toward 10\.71\.0\.0\/16/,
  );
  o = await run("rome", (objs) => {
    atVersion(objs, "v1.0.0");
    const cfg = find(objs, "Configuration", "milan-8d1f03");
    cfg.spec.remote.cidr.pod = ["10.245.0.0/16"];
    const fw = find(objs, "FirewallConfiguration", "milan-8d1f03-remap-podcidr");
    fw.spec.table.chains[0].rules.natRules[0].to = "10.245.0.0/16";
    const rc = find(objs, "RouteConfiguration", "milan-8d1f03-gw-ext");
    for (const r of rc.spec.table.rules) {
      if (r.dst === "10.244.0.0/16") r.dst = r.routes[0].dst = "10.245.0.0/16";
    }
  });
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /remap-podcidr does not match .*missing snat src 10\.245\.0\.0\/16 → 10\.71\.0\.0\/16; stale snat src 10\.244\.0\.0\/16/,
  );
  assert.ok(o.evidence!.some((l) => /7228d3801/.test(l)));
});
