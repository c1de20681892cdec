import assert from "node:assert/strict";
import { firstFree, PF_IPAM } from "./pf_ipam.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";

Deno.test("PF-IPAM: the first free block of the pools, around what is taken", () => {
  assert.equal(firstFree(["10.0.0.0/8"], 16, ["10.0.0.0/16", "10.1.0.0/16"]), "10.2.0.0/16");
  assert.equal(firstFree(["10.244.0.0/16"], 16, ["10.244.0.0/16"]), null);
  assert.equal(firstFree(["10.244.0.0/16", "192.168.0.0/16"], 16, ["10.244.0.0/16"]), "192.168.0.0/16");
});

Deno.test("PF-IPAM: the same pod CIDR on both sides is remapped, with room: pass, listing the remaps", async () => {
  const o = await PF_IPAM.run(pairContext(await solo("rome-solo"), await solo("milan-solo")));
  assert.equal(o.status, "pass", o.summary);
  assert.ok(
    o.evidence?.some((e) =>
      /rome-4b2a9e \(consumer\) will remap milan-8d1f03's pod CIDR 10\.244\.0\.0\/16/.test(e)
    ),
  );
});

Deno.test("PF-IPAM: without Liqo, the pod CIDR comes from kubeadm-config, and the pools are not judged", async () => {
  const o = await PF_IPAM.run(pairContext(await solo("rome-solo"), await solo("milan-bare")));
  assert.equal(o.status, "pass", o.summary);
  const text = (o.evidence ?? []).join("\n");
  assert.match(
    text,
    /milan \(provider\): pod 10\.244\.0\.0\/16 \(kube-system\/kubeadm-config networking\.podSubnet\)/,
  );
  assert.match(text, /pools skipped: Liqo is not installed on milan/);
});

Deno.test("PF-IPAM: no pod CIDR anywhere is unknown, with why", async () => {
  const bare = (await solo("milan-bare")).filter((o) => o.metadata.name !== "kubeadm-config");
  for (const n of bare.filter((o) => o.kind === "Node")) (n as { spec: Record<string, unknown> }).spec = {};
  const o = await PF_IPAM.run(pairContext(await solo("rome-solo"), bare));
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /pod CIDR unknown/);
});
