/**
 * The session end to end in-process: the real client, writer and exec against the fake API server
 * (plain HTTP; TLS is the e2e runner's subject), the testdata/active scenarios' clusters and
 * network model. Cleanup is asserted from the server's state, not from the session's record.
 */
import { fixText } from "../report/remediation.ts";
import { fix, flyingfish, kubectl, step } from "../checks/remediation.ts";
import assert from "node:assert/strict";
import {
  type ActiveCluster,
  type ActiveOptions,
  type ActiveOutput,
  runActive,
  withFlyingfishFlags,
} from "./session.ts";
import type { K8sObject } from "../kube/source.ts";
import { activeScenariosRoot, loadScenario, serveScenario } from "../fakekube/mod.ts";
import { PROBE_IMAGES } from "./fleet/images.ts";
import type { SignalHost } from "./fleet/signals.ts";
import { openActiveCluster } from "../tests/support/active_cluster.ts";
import { PROBE_LABELS, type ProbeMode, type ProbeName, type Side } from "./model.ts";

/** Signal listeners that are never called (the session must not touch the test runner's). */
const QUIET: SignalHost = { add: () => {}, remove: () => {} };

interface Served {
  local: ActiveCluster;
  remote: ActiveCluster | null;
  objects(cluster: "rome" | "milan"): K8sObject[];
  close(): Promise<void>;
}

async function serve(name: string, withRemote = true): Promise<Served> {
  const s = await loadScenario(name, activeScenariosRoot());
  const served = await serveScenario(s, { tls: false });
  const closers: (() => Promise<void>)[] = [];
  const open = async (cluster: string, side: Side): Promise<ActiveCluster> => {
    const opened = await openActiveCluster(served.kubeconfigYaml(cluster), side, cluster);
    closers.push(opened.close);
    return opened.cluster;
  };
  try {
    const local = await open(s.run.local, "local");
    const remote = withRemote && s.run.remote ? await open(s.run.remote, "remote") : null;
    return {
      local,
      remote,
      objects: (c) => served.clusters[c]!.objects(),
      close: async () => {
        await Promise.all(closers.map((c) => c()));
        await served.close();
      },
    };
  } catch (e) {
    await Promise.all(closers.map((c) => c()));
    await served.close();
    throw e;
  }
}

function options(probes: ProbeName[], mode: ProbeMode, o: Partial<ActiveOptions> = {}): ActiveOptions {
  return {
    probes,
    mode,
    peer: null,
    keep: false,
    images: { ...PROBE_IMAGES },
    tolerate: [],
    probeTimeoutMs: 20_000,
    cleanupTimeoutMs: 10_000,
    ...o,
  };
}

/** Objects still labelled with the run id in a cluster. */
function leftovers(objects: K8sObject[], runId: string): string[] {
  return objects.filter((o) =>
    o.metadata.labels?.[PROBE_LABELS.runId] === runId || o.metadata.name.endsWith(runId)
  )
    .map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`);
}

function status(out: ActiveOutput): Record<string, string> {
  return Object.fromEntries(out.results.map((r) => [r.id, r.status]));
}

Deno.test("session: healthy direct run — matrix and udp green, everything removed from both clusters", async () => {
  const s = await serve("healthy");
  try {
    const progress: string[] = [];
    const out = await runActive(
      s.local,
      s.remote,
      options(["matrix", "udp"], "direct", { runId: "sess0001" }),
      {
        signal: new AbortController().signal,
        onProgress: (l) => progress.push(l),
        signalHost: QUIET,
      },
    );
    assert.deepEqual(
      status(out),
      { "PROBE-MATRIX": "pass", "PROBE-UDP": "pass" },
      JSON.stringify(out.results, null, 1),
    );
    const matrix = out.results[0];
    assert.equal(matrix.layer, "probe");
    assert.equal(matrix.peer, "milan-8d1f03");
    assert.equal(matrix.cluster, "rome-4b2a9e ↔ milan-8d1f03");
    assert.equal(out.record!.runId, "sess0001");
    assert.equal(out.record!.mode, "direct");
    assert.equal(out.record!.matrix!.grids.length, 4);
    assert.ok(out.record!.created.some((c) => c.kind === "Namespace" && c.cluster === "milan-8d1f03"));
    assert.ok(out.record!.created.some((c) => c.kind === "Pod"));
    assert.deepEqual(out.record!.cleanup.map((c) => c.status), ["removed", "removed"]);
    assert.ok(progress.some((l) => /run sess0001/.test(l)));
    // From the server's state: nothing of the run is left in either cluster.
    assert.deepEqual(leftovers(s.objects("rome"), "sess0001"), []);
    assert.deepEqual(leftovers(s.objects("milan"), "sess0001"), []);
  } finally {
    await s.close();
  }
});

Deno.test("session: a black-holed remote node is a red column; --keep keeps the namespace", async () => {
  const s = await serve("remote-node-blackholed");
  try {
    const out = await runActive(
      s.local,
      s.remote,
      options(["matrix"], "direct", { runId: "sess0002", keep: true }),
      { signal: new AbortController().signal, signalHost: QUIET },
    );
    const m = out.results[0];
    assert.equal(m.status, "fail");
    assert.match(m.summary, /milan-worker-2 \(milan-8d1f03\) cut off from rome-4b2a9e both ways/);
    assert.ok(out.record!.matrix!.reading.some((l) => /column milan-worker-2 red/.test(l)));
    assert.equal(out.record!.cleanup[0].status, "kept");
    assert.match(
      out.record!.cleanup[0].detail,
      /flyingfish probe --cleanup --run-id sess0002 --context rome/,
    );
    assert.ok(
      s.objects("rome").some((o) =>
        o.kind === "Namespace" && o.metadata.name === "flyingfish-probe-sess0002"
      ),
    );
  } finally {
    await s.close();
  }
});

Deno.test("session: an image that cannot be pulled fails the probes naming it, and cleans up", async () => {
  const s = await serve("image-pull-failure");
  try {
    const out = await runActive(
      s.local,
      s.remote,
      options(["matrix", "udp"], "direct", { runId: "sess0003" }),
      {
        signal: new AbortController().signal,
        signalHost: QUIET,
      },
    );
    for (const r of out.results) {
      assert.equal(r.status, "fail", r.summary);
      assert.match(r.summary, /probe pods not Ready: .*(ErrImagePull|ImagePullBackOff)/);
      assert.match(r.summary, /agnhost/);
      assert.match(fixText(r.remediation), /--image-registry/);
    }
    assert.deepEqual(leftovers(s.objects("rome"), "sess0003"), []);
    assert.deepEqual(leftovers(s.objects("milan"), "sess0003"), []);
  } finally {
    await s.close();
  }
});

Deno.test("session: missing RBAC is a tool error before anything is created", async () => {
  const s = await serve("missing-rbac");
  try {
    const before = s.objects("rome").length + s.objects("milan").length;
    await assert.rejects(
      runActive(s.local, s.remote, options(["matrix"], "direct", { runId: "sess0004" }), {
        signal: new AbortController().signal,
        signalHost: QUIET,
      }),
      (e: Error & { exitCode?: number }) => e.exitCode === 3 && /cannot create pods/.test(e.message),
    );
    assert.equal(s.objects("rome").length + s.objects("milan").length, before);
  } finally {
    await s.close();
  }
});

Deno.test("session: aborting the run still removes what was created", async () => {
  const s = await serve("healthy");
  try {
    const ctl = new AbortController();
    const out = await runActive(s.local, s.remote, options(["matrix"], "direct", { runId: "sess0005" }), {
      signal: ctl.signal,
      signalHost: QUIET,
      onProgress: (l) => {
        if (/creating \d+ probe pods/.test(l)) ctl.abort(new Error("interrupted by SIGINT"));
      },
    });
    assert.notEqual(out.results[0].status, "pass");
    assert.deepEqual(leftovers(s.objects("rome"), "sess0005"), []);
    assert.deepEqual(leftovers(s.objects("milan"), "sess0005"), []);
  } finally {
    await s.close();
  }
});

Deno.test("session: an unknown --peer, or --mode direct without the remote kubeconfig, are tool errors", async () => {
  const s = await serve("healthy", false);
  try {
    await assert.rejects(
      runActive(s.local, null, options(["matrix"], "direct"), {
        signal: new AbortController().signal,
        signalHost: QUIET,
      }),
      /--mode direct needs --remote-kubeconfig/,
    );
    await assert.rejects(
      runActive(s.local, null, options(["matrix"], "offload", { peer: "nobody" }), {
        signal: new AbortController().signal,
        signalHost: QUIET,
      }),
      /--peer nobody: no ForeignCluster/,
    );
  } finally {
    await s.close();
  }
});

Deno.test("session: offload mode with the consumer only — matrix green, offloading and namespace removed", async () => {
  const s = await serve("offload-healthy", false);
  try {
    const out = await runActive(s.local, null, options(["matrix"], "offload", { runId: "sess0006" }), {
      signal: new AbortController().signal,
      signalHost: QUIET,
    });
    assert.equal(out.results[0].status, "pass", out.results[0].summary);
    assert.equal(out.results[0].cluster, "rome-4b2a9e");
    assert.ok(out.record!.created.some((c) => c.kind === "NamespaceOffloading"));
    // Only the consumer was written to; the offloaded columns are pods.
    assert.deepEqual(out.record!.cleanup.map((c) => [c.cluster, c.status]), [["rome-4b2a9e", "removed"]]);
    assert.equal(out.record!.matrix!.grids[0].title, "rome-4b2a9e → milan-8d1f03 (offloaded pods)");
    assert.deepEqual(leftovers(s.objects("rome"), "sess0006"), []);
  } finally {
    await s.close();
  }
});

Deno.test("session: suggested flyingfish commands carry the run's cluster flags", () => {
  const flags =
    "--kubeconfig 'my rome.yaml' --context rome --remote-kubeconfig milan.yaml --remote-context milan";
  const look = fix(
    "look closer",
    step(flyingfish("check", "--only", "fabric"), "the fabric checks"),
    kubectl("local", "get", "nodes"),
  );
  assert.equal(
    fixText(withFlyingfishFlags(look, flags)),
    // The line is now too long for the comment beside it: it goes above.
    "# look closer\n# the fabric checks\nflyingfish check --only fabric --kubeconfig 'my rome.yaml' --context rome " +
      "--remote-kubeconfig milan.yaml --remote-context milan\nkubectl get nodes",
  );
  // A flag the command names itself is left to it.
  const matrix = fix(flyingfish("probe", "matrix", "--remote-kubeconfig", "<kubeconfig of milan>"));
  assert.equal(
    fixText(withFlyingfishFlags(matrix, "--context rome --remote-kubeconfig=x.yaml")),
    "flyingfish probe matrix --remote-kubeconfig <kubeconfig of milan> --context rome",
  );
  const mtu = fix(flyingfish("probe", "mtu"));
  assert.deepEqual(withFlyingfishFlags(mtu, ""), mtu);
});
