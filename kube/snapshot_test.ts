import assert from "node:assert/strict";
import { collectBundle } from "../collect/collect.ts";
import { packBundle } from "./bundle.ts";
import { openSnapshotBytes } from "./snapshot.ts";
import { KINDS } from "./kinds.ts";
import type { ClusterSource, ExecOutcome, K8sObject, ListOutcome } from "./source.ts";
import { collectWireguard, rates } from "../probes/wireguard.ts";

const PRIV = "qNV+r8tTemNWVIOgIL/Cmra10L1IGDl3jifN/h8lNW4=";
const PUB = "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=";
const PEER = "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=";
const NS = "liqo-tenant-milan";
const POD = "gw-milan-abc";

function objects(): Record<string, K8sObject[]> {
  return {
    foreignclusters: [{ metadata: { name: "milan" }, spec: { clusterID: "milan" } }],
    gatewayclients: [{
      metadata: { name: "milan", namespace: NS, labels: { "liqo.io/remote-cluster-id": "milan" } },
    }],
    pods: [{
      metadata: {
        name: POD,
        namespace: NS,
        labels: {
          "networking.liqo.io/component": "gateway",
          "networking.liqo.io/gateway-name": "milan",
          "networking.liqo.io/active": "true",
        },
      },
      spec: { containers: [{ name: "wireguard" }] },
      status: { phase: "Running" },
    }],
    secrets: [{
      kind: "Secret",
      metadata: { name: "gw-milan", namespace: NS },
      data: { privateKey: PRIV, publicKey: PUB },
    }],
  };
}

/** A fake live source: counters move 1000 B/s, the clock is real. */
function fakeSource(forbidden: Set<string> = new Set()): ClusterSource {
  const start = Date.now();
  const objs = objects();
  return {
    endpoint: { context: "rome", server: "https://127.0.0.1:6443" },
    now: () => new Date(),
    isSnapshot: false,
    list(spec): Promise<ListOutcome> {
      if (forbidden.has(spec.plural)) {
        return Promise.resolve({ ok: false, reason: "forbidden", message: `${spec.plural} is forbidden` });
      }
      return Promise.resolve({ ok: true, items: structuredClone(objs[spec.plural] ?? []) });
    },
    discovery: (groups) =>
      Promise.resolve({ ok: true, groups: groups.map((g) => ({ ...g, resources: ["x"] })) }),
    exec(_ns, _pod, _c, command): Promise<ExecOutcome> {
      if (command[0] === "cat") {
        return Promise.resolve({ ok: true, stdout: "1340\n", stderr: "", exitCode: 0, via: "api" });
      }
      const rx = 5000 + Math.round(Date.now() - start); // 1000 B/s
      const hs = Math.floor(Date.now() / 1000) - 20;
      const stdout = [
        ["liqo-tunnel", PRIV, PUB, "51840", "off"].join("\t"),
        [
          "liqo-tunnel",
          PEER,
          "(none)",
          "203.0.113.5:51820",
          "0.0.0.0/0",
          String(hs),
          String(rx),
          String(rx),
          "off",
        ]
          .join("\t"),
      ].join("\n") + "\n";
      return Promise.resolve({ ok: true, stdout, stderr: "", exitCode: 0, via: "api" });
    },
    close: () => Promise.resolve(),
  };
}

const KIND_LIST = ["foreignclusters", "gatewayclients", "gatewayservers", "pods", "secrets"] as const;

Deno.test("snapshot: lists, discovery and wg samples replay with the original spacing", async () => {
  const bundle = await collectBundle([{ role: "local", source: fakeSource(), reader: null }], {
    kinds: KIND_LIST,
    sampleIntervalMs: 300,
  });
  const text = bundle.entries.map((e) => new TextDecoder().decode(e.data)).join("\n");
  assert.ok(!text.includes(PRIV), "private key written");
  const snap = await openSnapshotBytes(await packBundle(bundle.entries));
  assert.equal(snap.remote, null);
  const src = snap.local;
  assert.equal(src.isSnapshot, true);
  assert.equal(src.now().toISOString(), bundle.manifest.clusters[0].capturedAt);
  const pods = await src.list(KINDS.pods);
  assert.ok(pods.ok && pods.items.length === 1);
  const secrets = await src.list(KINDS.secrets);
  assert.ok(secrets.ok);
  assert.deepEqual(secrets.ok && secrets.items[0].data, { publicKey: PUB });
  const notCaptured = await src.list(KINDS.nodes);
  assert.equal(notCaptured.ok, false);
  const disco = await src.discovery([{ group: "core.liqo.io", version: "v1beta1" }, {
    group: "x.io",
    version: "v1",
  }]);
  assert.ok(disco.ok && disco.groups[1].resources.length === 0);

  for (let round = 0; round < 2; round++) {
    const ev = await collectWireguard(src, NS, POD, 10_000);
    assert.ok(ev.ok, JSON.stringify(ev));
    assert.equal(ev.via, "snapshot");
    assert.ok(ev.second, `round ${round}: second sample replayed`);
    const gap = ev.second.takenAt - ev.first.takenAt;
    assert.ok(gap >= 250 && gap < 5000, `original spacing kept: ${gap} ms`);
    const r = rates(ev.first, ev.second);
    assert.equal(r.length, 1);
    assert.ok(r[0].rxPerSec! > 500 && r[0].rxPerSec! < 2000, `rate ${r[0].rxPerSec}`);
    assert.deepEqual(ev.mtu, { "liqo-tunnel": 1340 });
    assert.equal(ev.first.interfaces[0].publicKey, PUB);
  }
  const other = await src.exec(NS, POD, "wireguard", ["ip", "link"]);
  assert.equal(other.ok, false);
});

Deno.test("snapshot: refused kinds and execs replay as refusals; an unreachable remote keeps its reason", async () => {
  const bundle = await collectBundle([
    { role: "local", source: fakeSource(new Set(["secrets"])), reader: null },
    { role: "remote", source: null, reader: null, error: "remote cluster unavailable: connection refused" },
  ], { kinds: KIND_LIST, sampleIntervalMs: 10 });
  const local = bundle.manifest.clusters.find((c) => c.role === "local")!;
  assert.deepEqual(local.kinds.secrets, { state: "forbidden", message: "secrets is forbidden" });
  const snap = await openSnapshotBytes(await packBundle(bundle.entries));
  const secrets = await snap.local.list(KINDS.secrets);
  assert.deepEqual(secrets, { ok: false, reason: "forbidden", message: "secrets is forbidden" });
  assert.deepEqual(snap.remote, { source: null, error: "remote cluster unavailable: connection refused" });
});

Deno.test("collect --redact-ips: exec output pseudonymised; loopback and 0.0.0.0/0 kept", async () => {
  const bundle = await collectBundle([{ role: "local", source: fakeSource(), reader: null }], {
    kinds: KIND_LIST,
    sampleIntervalMs: 10,
    redactIps: true,
    ipKey: new Uint8Array(32).fill(3),
  });
  const text = bundle.entries.map((e) => new TextDecoder().decode(e.data)).join("\n");
  assert.ok(!text.includes("203.0.113.5"));
  assert.ok(text.includes("0.0.0.0/0"));
  assert.ok(text.includes("https://127.0.0.1:6443"));
});

Deno.test("snapshot logs replay the stored log, bounded; missing is not captured, refused says why", async () => {
  const { layout, ManifestClusterSchema } = await import("./bundle.ts");
  const { replayLog } = await import("./snapshot.ts");
  const cluster = ManifestClusterSchema.parse({
    name: "local",
    role: "local",
    context: "rome",
    server: "https://127.0.0.1:6443",
    clusterId: "rome",
    logs: [{
      namespace: "liqo",
      pod: "liqo-webhook-x",
      container: "webhook",
      what: "logs",
      state: "refused",
      reason: "forbidden: logs of liqo/liqo-webhook-x/webhook: 403",
    }],
  });
  const files = new Map<string, Uint8Array>([
    [layout.log("local", "liqo", "liqo-ipam-x", "ipam"), new TextEncoder().encode("a\nb\nE1 failed\n")],
  ]);
  const ok = replayLog(files, cluster, "liqo", "liqo-ipam-x", "ipam", { tailLines: 2, previous: true });
  assert.ok(ok.ok);
  assert.equal(ok.ok && ok.text, "b\nE1 failed\n");
  assert.equal(ok.ok && ok.via, "snapshot");
  assert.match(ok.ok ? ok.note ?? "" : "", /current log/);
  const missing = replayLog(files, cluster, "liqo", "liqo-proxy-x", "proxy", {});
  assert.ok(!missing.ok && missing.reason === "missing" && /not captured/.test(missing.message));
  const refused = replayLog(files, cluster, "liqo", "liqo-webhook-x", "webhook", {});
  assert.ok(
    !refused.ok && refused.reason === "forbidden" && /get pods\/log in namespace liqo/.test(refused.message),
  );
});
