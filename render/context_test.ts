import assert from "node:assert/strict";
import { clusterLines, connectingLine } from "./context.ts";
import type { ClusterInfo } from "../report/model.ts";

const ROME: ClusterInfo = {
  name: "rome-4b2a9e",
  clusterId: "rome-4b2a9e",
  context: "kind-rome",
  server: "https://127.0.0.1:6443",
  role: "local",
  liqoNamespace: "liqo",
  liqoVersion: "v1.2.0",
};

Deno.test("connectingLine: server and context of each cluster; a snapshot is read, not connected to", () => {
  const live = { context: "kind-rome", server: "https://127.0.0.1:6443", snapshot: false };
  assert.equal(connectingLine([live]), "connecting to https://127.0.0.1:6443 (context kind-rome)…");
  assert.equal(
    connectingLine([live, { ...live, context: "kind-milan", server: "https://10.0.0.2:6443" }]),
    "connecting to https://127.0.0.1:6443 (context kind-rome) and https://10.0.0.2:6443 (context kind-milan)…",
  );
  assert.equal(
    connectingLine([{ ...live, snapshot: true }]),
    "reading snapshot of https://127.0.0.1:6443 (context kind-rome)…",
  );
  assert.equal(
    connectingLine([{ ...live, context: "a\x1b[2Jb" }]),
    "connecting to https://127.0.0.1:6443 (context a [2Jb)…",
  );
});

Deno.test("clusterLines: cluster ID, context, API server and Liqo version; roles in dual mode", () => {
  assert.deepEqual(clusterLines({ clusters: [ROME] }), [
    "cluster rome-4b2a9e · context kind-rome · https://127.0.0.1:6443 · Liqo v1.2.0",
  ]);
  assert.deepEqual(clusterLines({ clusters: [ROME] }, true), [
    "cluster rome-4b2a9e · context kind-rome · https://127.0.0.1:6443 · Liqo v1.2.0 in liqo",
  ]);
  const noLiqo = { ...ROME, clusterId: null, liqoVersion: null, liqoNamespace: null };
  const remote = {
    ...ROME,
    role: "remote" as const,
    name: "remote",
    clusterId: null,
    context: "",
    server: "",
  };
  assert.deepEqual(clusterLines({ clusters: [noLiqo, remote] }), [
    "local cluster (no Liqo cluster ID) · context kind-rome · https://127.0.0.1:6443 · Liqo not found",
    "remote cluster unavailable",
  ]);
  assert.match(
    clusterLines({ clusters: [{ ...ROME, liqoVersion: null }] })[0],
    /Liqo version unknown \(namespace liqo\)$/,
  );
});

Deno.test("clusterLines: Liqo's installation unreadable is said so, with why — never 'Liqo not found'", () => {
  const unread = {
    ...ROME,
    liqoVersion: null,
    liqoNamespace: null,
    liqoUnreadable: "deployments forbidden (403): deployments.apps is forbidden",
  };
  assert.deepEqual(clusterLines({ clusters: [unread] }), [
    "cluster rome-4b2a9e · context kind-rome · https://127.0.0.1:6443 · Liqo's installation could not be read " +
    "(deployments forbidden (403): deployments.apps is forbidden)",
  ]);
});
