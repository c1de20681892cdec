/**
 * `flyingfish diff`'s pure function over pairs of sides that differ by one real change — each side
 * a scenario served by the fake API server and read through diff/'s recorder, the second one
 * broken the way it breaks in the field (or derived from the first by editing its objects) — each
 * asserting the check that newly fails, the object and the field named; and volatile-only changes
 * (a pod restarted into the same state, a resync that bumped every resourceVersion) giving exit 0
 * with nothing listed.
 */
import assert from "node:assert/strict";
import { diffSides } from "../../diff/diff.ts";
import { PASSIVE_CHECKS } from "../../checks/catalog.ts";
import type { DiffReport } from "../../report/diff_schema.ts";
import type { K8sObject } from "../../kube/source.ts";
import { type Edit, sideOf } from "./support.ts";

async function pair(before: string, after: string, edit?: Edit): Promise<DiffReport> {
  const now = new Date();
  const [b, a] = [await sideOf(before, undefined, now), await sideOf(after, edit, now)];
  return diffSides(b, a, PASSIVE_CHECKS, now);
}

function field(d: DiffReport, kind: string, name: string, path: RegExp) {
  const o = d.objects.find((x) => x.kind === kind && x.name === name);
  assert.ok(o, `no change of ${kind} ${name} in ${d.objects.map((x) => `${x.kind} ${x.name}`).join(", ")}`);
  const f = o.fields.find((x) => path.test(x.path));
  assert.ok(f, `no field ${path} of ${kind} ${name}: ${o.fields.map((x) => x.path).join(", ")}`);
  return { object: o, field: f };
}

const show = (d: DiffReport) =>
  JSON.stringify(
    {
      answer: d.answer?.id,
      transitions: d.transitions,
      objects: d.objects.map((o) => o.summary),
    },
    null,
    1,
  );

Deno.test("diff: a gateway recreated with a new key → TUN-04, the gateway Secret's public key (fingerprints only)", async () => {
  const d = await pair("dual-healthy", "dual-tun-stale-publickey");
  assert.equal(d.exitCode, 2, show(d));
  assert.equal(d.answer?.id, "TUN-04", show(d));
  const { object, field: f } = field(d, "Secret", "gw-rome-4b2a9e", /^data\.publicKey$/);
  assert.equal(object.cluster, "remote");
  assert.ok(object.answerReads, "TUN-04 reads secrets: listed first");
  assert.equal(d.objects[0], object);
  assert.equal(f.label, "gateway public key (fingerprint)");
  assert.match(f.before!, /^key sha256:[0-9a-f]{16}$/);
  assert.match(f.after!, /^key sha256:[0-9a-f]{16}$/);
  // The recreation and the new key pair, as readings of milan's gateway pod.
  const readings = d.readings.filter((r) => r.cluster === "remote" && r.subject.includes("gw-rome-4b2a9e"));
  assert.ok(readings.some((r) => r.what === "recreated"), JSON.stringify(d.readings));
  const key = readings.find((r) => r.what === "liqo-tunnel public key");
  assert.match(key?.before ?? "", /^sha256:[0-9a-f]{16}$/, JSON.stringify(d.readings));
  assert.notEqual(key?.before, key?.after);
  // No key material anywhere in the document.
  assert.doesNotMatch(JSON.stringify(d), /[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=/);
  // What the stale key breaks downstream is marked as such.
  const tun01 = d.transitions.find((t) => t.id === "TUN-01" && t.cluster === "remote");
  assert.equal(tun01?.downstreamOf, "TUN-04");
});

Deno.test("diff: an LB address changed → GW-03, the Service's LoadBalancer address", async () => {
  const d = await pair("healthy-provider", "gw-stale-endpoint");
  assert.equal(d.exitCode, 2);
  assert.equal(d.answer?.id, "GW-03", show(d));
  const gone = field(d, "Service", "gw-rome-4b2a9e", /^status\.loadBalancer\.ingress\[203\.0\.113\.50\]$/);
  assert.equal(gone.field.label, "LoadBalancer address");
  assert.deepEqual([gone.field.before, gone.field.after], ["203.0.113.50", null]);
  const added = field(d, "Service", "gw-rome-4b2a9e", /^status\.loadBalancer\.ingress\[203\.0\.113\.77\]$/);
  assert.deepEqual([added.field.before, added.field.after], [null, "203.0.113.77"]);
  assert.ok(gone.object.answerReads);
  assert.ok(d.transitions.filter((t) => t.to === "skip").every((t) => t.downstreamOf === "GW-03"));
});

Deno.test("diff: an MTU edited on one side → TUN-06, the GatewayServer's MTU on that side only", async () => {
  const d = await pair("dual-healthy", "dual-tun-mtu-mismatch");
  assert.equal(d.exitCode, 2);
  assert.equal(d.answer?.id, "TUN-06", show(d));
  const mtu = d.objects.flatMap((o) => o.fields.filter((f) => f.label === "MTU").map((f) => ({ o, f })));
  assert.ok(mtu.length > 0, show(d));
  assert.ok(mtu.every(({ o }) => o.cluster === "remote"), "only milan's side was edited");
  assert.ok(mtu.some(({ f }) => f.before === "1340" && f.after === "1500"));
});

Deno.test("diff: a NetworkPolicy added → FAB-03, the policy named", async () => {
  const d = await pair("healthy-consumer", "fab-networkpolicy-denies-geneve");
  assert.equal(d.exitCode, 2);
  assert.equal(d.answer?.id, "FAB-03", show(d));
  const np = d.objects.find((o) => o.kind === "NetworkPolicy");
  assert.equal(np?.change, "added", show(d));
  assert.deepEqual([np.namespace, np.name], ["liqo-tenant-milan-8d1f03", "default-deny-ingress"]);
  assert.equal(np.summary, "NetworkPolicy liqo-tenant-milan-8d1f03/default-deny-ingress added");
  assert.equal(np?.layer, "cni");
  assert.ok(np?.answerReads, "FAB-03 reads networkpolicies");
});

Deno.test("diff: Liqo's version changed on one side → ENV-02, the controller-manager image on that side", async () => {
  const d = await pair("dual-healthy", "dual-version-skew");
  assert.equal(d.exitCode, 2);
  assert.equal(d.answer?.id, "ENV-02", show(d));
  const image = d.objects.flatMap((o) =>
    o.fields.filter((f) => f.label === "image (version)").map((f) => ({ o, f }))
  );
  assert.ok(image.some(({ o }) => o.kind === "Deployment" && o.name === "liqo-controller-manager"), show(d));
  assert.ok(image.every(({ o }) => o.cluster === "remote"), "only milan changed");
  assert.notEqual(d.before.clusters[1].liqoVersion, d.after.clusters[1].liqoVersion);
  const cluster = d.objects.find((o) => o.kind === "Cluster");
  assert.equal(cluster?.cluster, "remote", show(d));
  assert.equal(
    cluster.fields.find((f) => f.label === "Liqo version")?.after,
    d.after.clusters[1].liqoVersion,
  );
  assert.ok(cluster.answerReads, "ENV-02 reads the Deployments the version is read from");
});

/** rome-worker-2 copied as a new node rome-worker-9: no fabric pod, InternalNode or GeneveTunnel for it. */
const addNode: Edit = (_cluster, objects) => {
  const worker = objects.find((o) => o.kind === "Node" && o.metadata.name === "rome-worker-2");
  assert.ok(worker);
  const node = structuredClone(worker) as K8sObject & {
    status: { addresses: { type: string; address: string }[] };
  };
  node.metadata = { ...node.metadata, name: "rome-worker-9", uid: crypto.randomUUID() };
  node.metadata.labels = { ...node.metadata.labels, "kubernetes.io/hostname": "rome-worker-9" };
  node.status.addresses = node.status.addresses.map((a) =>
    a.type === "InternalIP"
      ? { ...a, address: "10.0.0.99" }
      : a.type === "Hostname"
      ? { ...a, address: "rome-worker-9" }
      : a
  );
  return [...objects, node];
};

Deno.test("diff: a node added without fabric wiring → FAB-01, the Node added", async () => {
  const d = await pair("healthy-consumer", "healthy-consumer", addNode);
  assert.equal(d.exitCode, 2, show(d));
  assert.equal(d.answer?.id, "FAB-01", show(d));
  assert.match(d.answer!.summary, /rome-worker-9/);
  const node = d.objects.find((o) => o.kind === "Node" && o.name === "rome-worker-9");
  assert.equal(node?.change, "added");
  assert.ok(node?.answerReads, "the answer reads nodes");
});

/** Every resourceVersion bumped, and a Liqo pod recreated by its ReplicaSet into the same state. */
const volatileOnly: Edit = (_cluster, objects) =>
  objects.map((o) => {
    const c = structuredClone(o);
    c.metadata.resourceVersion = String(Number(c.metadata.resourceVersion ?? 1) + 1000);
    c.metadata.managedFields = [{ manager: "resync", operation: "Update" }];
    if (c.kind === "Pod" && c.metadata.name.startsWith("liqo-controller-manager-")) {
      c.metadata.name = c.metadata.name.replace(/-[a-z0-9]{5}$/, "-zz9zz");
      c.metadata.uid = crypto.randomUUID();
      const st = c.status as { podIP?: string; podIPs?: { ip: string }[]; startTime?: string };
      st.podIP = "10.200.1.250";
      st.podIPs = [{ ip: "10.200.1.250" }];
      st.startTime = new Date().toISOString();
    }
    return c;
  });

Deno.test("diff: volatile-only changes (a pod recreated into the same state, a resync) → exit 0, nothing listed", async () => {
  const d = await pair("healthy-consumer", "healthy-consumer", volatileOnly);
  assert.equal(d.exitCode, 0, show(d));
  assert.deepEqual(d.transitions, []);
  assert.deepEqual(d.objects, []);
  assert.equal(d.answer, null);
});

Deno.test("diff: a fix is exit 1 with the fixed check named; exec forbidden is exit 1 with new unknowns, nothing newly failing", async () => {
  const fixed = await pair("gw-lb-pending", "healthy-provider");
  assert.equal(fixed.exitCode, 1, show(fixed));
  assert.equal(fixed.answer, null);
  assert.ok(fixed.transitions.some((t) => t.id === "GW-02" && t.kind === "fixed"), show(fixed));
  assert.equal(fixed.summary.newlyFailing, 0);

  const blind = await pair("healthy-consumer", "tun-exec-forbidden");
  assert.equal(blind.exitCode, 1, show(blind));
  assert.equal(blind.answer, null);
  assert.ok(blind.transitions.some((t) => t.kind === "new-unknown" && t.layer === "tunnel"), show(blind));
  assert.deepEqual(blind.objects, [], "the objects did not change: only what may be read did");
});

Deno.test("diff: two independent faults → the earliest is the answer, the other is also newly failing, the same tunnel's second check downstream", async () => {
  const d = await pair("healthy-consumer", "field2-udp-blocked-and-ip-pending");
  assert.equal(d.exitCode, 2);
  assert.equal(d.answer?.id, "TUN-01", show(d));
  assert.deepEqual(d.answer.alsoNewlyFailing.map((a) => a.id), ["IPAM-04"]);
  const tun02 = d.transitions.find((t) => t.id === "TUN-02");
  assert.equal(tun02?.to, "fail");
  assert.equal(tun02?.downstreamOf, "TUN-01", "the same dead tunnel is not a second fault");
  assert.equal(d.transitions.find((t) => t.id === "IPAM-04")?.downstreamOf, null);
});

/** Credentials planted where a cluster holds them: none may reach a diff document. */
const PLANTED = {
  cm: "ffplant-diff-cm-password-5a1c",
  env: "ffplant-diff-env-apikey-7b2d",
  arg: "ffplant-diff-arg-token-9c3e",
  note: "ffplant-diff-annotation-1d4f",
};

const plant: Edit = (_cluster, objects) => {
  const cm: K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "app-settings", namespace: "liqo", labels: { "app.kubernetes.io/part-of": "liqo" } },
    data: { password: PLANTED.cm },
  };
  return [
    ...objects.map((o) => {
      if (o.kind !== "Deployment" || o.metadata.name !== "liqo-controller-manager") return o;
      const d = structuredClone(o) as K8sObject & {
        spec: { template: { spec: { containers: { env?: unknown[]; args?: string[] }[] } } };
      };
      d.metadata.annotations = {
        ...d.metadata.annotations,
        "example.com/note": `db password is ${PLANTED.note}`,
      };
      const c = d.spec.template.spec.containers[0];
      c.env = [...(c.env ?? []), { name: "API_KEY", value: PLANTED.env }];
      c.args = [...(c.args ?? []), `--token=${PLANTED.arg}`];
      return d;
    }),
    cm,
  ];
};

Deno.test("diff: credentials planted in a changed ConfigMap, env, args and annotations never reach the document", async () => {
  const d = await pair("healthy-consumer", "collect-planted-secrets", plant);
  const text = JSON.stringify(d);
  for (const v of Object.values(PLANTED)) assert.ok(!text.includes(v), `${v} leaked`);
  for (
    const v of [
      "cPlAnTeDpRiVaTeKeYfOrTeStInGoNlY0123456789A=",
      "ff-planted-kubeconfig-token-7f3c9a1e5b2d4c6e8a0b",
    ]
  ) {
    assert.ok(!text.includes(v), `${v} leaked`);
  }
  // The changes are there, redacted: the objects changed, their secrets did not come along.
  assert.ok(d.objects.some((o) => o.kind === "Deployment" && o.name === "liqo-controller-manager"), show(d));
  assert.ok(
    d.objects.some((o) => o.kind === "Secret" && o.name === "planted-gateway-keys-milan-8d1f03"),
    show(d),
  );
});
