import assert from "node:assert/strict";
import {
  andThen,
  helm,
  kubectl,
  liqoctl,
  pipe,
  remoteKubeconfig,
  type RunsOn,
  shell,
} from "../checks/remediation.ts";
import {
  type ClusterAccess,
  commandLine,
  type PeerRole,
  printWord,
  resolverFor,
  type Targeting,
  withKubeconfig,
} from "./targets.ts";

const ROME = "rome-4b2a9e";
const MILAN = "milan-8d1f03";
const rome = (kubeconfig: string | null): ClusterAccess => ({
  name: ROME,
  clusterId: ROME,
  context: "rome",
  kubeconfig,
});
const milan = (kubeconfig: string | null): ClusterAccess => ({
  name: MILAN,
  clusterId: MILAN,
  context: "milan",
  kubeconfig,
});
const MILAN_FILE = "/home/me/kube configs/milan.yaml";
/** rome consumes milan: rome's ForeignCluster for milan says Provider, milan's for rome Consumer. */
const PEERS: PeerRole[] = [
  { cluster: ROME, clusterId: MILAN, role: "Provider" },
  { cluster: MILAN, clusterId: ROME, role: "Consumer" },
];

/** The printed `kubectl <flags> get pods` for `on`, observed on `home` about the other cluster. */
function line(on: RunsOn, home: string, t: Targeting): string {
  const peer = home === ROME ? MILAN : ROME;
  return commandLine(kubectl(on, "get", "pods"), resolverFor({ cluster: home, peer }, t), t.invoked);
}

const ON: RunsOn[] = ["local", "remote", "consumer", "provider", "none"];

function table(home: string, t: Targeting): Record<RunsOn, string> {
  return Object.fromEntries(ON.map((on) => [on, line(on, home, t)])) as Record<RunsOn, string>;
}

const R = "kubectl --kubeconfig rome.yaml --context rome get pods";
const M = `kubectl --kubeconfig '${MILAN_FILE}' --context milan get pods`;
const BARE = "kubectl get pods";

Deno.test("targets: dual run, kubeconfigs given — every `on` lands on its cluster, from either end", () => {
  const t: Targeting = { clusters: [rome("rome.yaml"), milan(MILAN_FILE)], peers: PEERS, invoked: true };
  assert.deepEqual(table(ROME, t), { local: R, remote: M, consumer: R, provider: M, none: BARE });
  assert.deepEqual(table(MILAN, t), { local: M, remote: R, consumer: R, provider: M, none: BARE });
});

Deno.test("targets: dual run, default kubeconfig — the context alone names the cluster", () => {
  const t: Targeting = { clusters: [rome(null), milan(null)], peers: PEERS, invoked: true };
  const r = "kubectl --context rome get pods", m = "kubectl --context milan get pods";
  assert.deepEqual(table(ROME, t), { local: r, remote: m, consumer: r, provider: m, none: BARE });
  assert.deepEqual(table(MILAN, t), { local: m, remote: r, consumer: r, provider: m, none: BARE });
});

Deno.test("targets: single run — the cluster outside the run is a placeholder, named by its part", () => {
  for (const kubeconfig of ["rome.yaml", null]) {
    const r = kubeconfig ? R : "kubectl --context rome get pods";
    const t: Targeting = { clusters: [rome(kubeconfig)], peers: PEERS.slice(0, 1), invoked: true };
    assert.deepEqual(table(ROME, t), {
      local: r,
      remote: `kubectl --kubeconfig <${MILAN} kubeconfig> get pods`,
      consumer: r,
      provider: "kubectl --kubeconfig <provider kubeconfig> get pods",
      none: BARE,
    });
  }
  // The provider checked alone: the consumer is the placeholder.
  const t: Targeting = { clusters: [milan(MILAN_FILE)], peers: PEERS.slice(1), invoked: true };
  assert.deepEqual(table(MILAN, t), {
    local: M,
    remote: `kubectl --kubeconfig <${ROME} kubeconfig> get pods`,
    consumer: "kubectl --kubeconfig <consumer kubeconfig> get pods",
    provider: M,
    none: BARE,
  });
});

Deno.test("targets: no invocation recorded — the observed cluster's commands stay bare, the other's by context", () => {
  const t: Targeting = { clusters: [rome(null), milan(null)], peers: PEERS, invoked: false };
  assert.deepEqual(table(ROME, t), {
    local: BARE,
    remote: "kubectl --context milan get pods",
    consumer: BARE,
    provider: "kubectl --context milan get pods",
    none: BARE,
  });
});

Deno.test("targets: a peer role that says neither end, or no peer at all → consumer/provider placeholders", () => {
  const unknown: Targeting = {
    clusters: [rome("rome.yaml"), milan(MILAN_FILE)],
    peers: [{ cluster: ROME, clusterId: MILAN, role: "Unknown" }],
    invoked: true,
  };
  assert.equal(line("consumer", ROME, unknown), "kubectl --kubeconfig <consumer kubeconfig> get pods");
  const clusterWide = resolverFor({ cluster: ROME, peer: null }, unknown);
  assert.equal(
    commandLine(kubectl("provider", "get", "pods"), clusterWide, true),
    "kubectl --kubeconfig <provider kubeconfig> get pods",
  );
  // A peering both ways: home consumes, the peer provides.
  const both: Targeting = {
    ...unknown,
    peers: [{ cluster: ROME, clusterId: MILAN, role: "ConsumerAndProvider" }],
  };
  assert.equal(line("consumer", ROME, both), R);
  assert.equal(line("provider", ROME, both), M);
});

Deno.test("targets: liqoctl peer from the provider's result runs on the consumer, --remote-kubeconfig the provider", () => {
  const cmd = liqoctl(
    "consumer",
    "peer",
    remoteKubeconfig("provider"),
    "--gw-server-service-type",
    "NodePort",
  );
  const at = (t: Targeting) => commandLine(cmd, resolverFor({ cluster: MILAN, peer: ROME }, t), t.invoked);
  assert.equal(
    at({ clusters: [rome("rome.yaml"), milan(MILAN_FILE)], peers: PEERS, invoked: true }),
    `liqoctl --kubeconfig rome.yaml --context rome peer --remote-kubeconfig '${MILAN_FILE}' --remote-context milan ` +
      "--gw-server-service-type NodePort",
  );
  assert.equal(
    at({ clusters: [milan("milan.yaml")], peers: PEERS.slice(1), invoked: true }),
    "liqoctl --kubeconfig <consumer kubeconfig> peer --remote-kubeconfig milan.yaml --remote-context milan " +
      "--gw-server-service-type NodePort",
  );
  // The default kubeconfig: the file is the user's to name, the context is known.
  assert.equal(
    at({ clusters: [milan(null)], peers: PEERS.slice(1), invoked: true }),
    `liqoctl --kubeconfig <consumer kubeconfig> peer --remote-kubeconfig <${MILAN} kubeconfig> --remote-context milan ` +
      "--gw-server-service-type NodePort",
  );
  // Seen from the consumer it is the same command.
  const t: Targeting = { clusters: [rome("rome.yaml"), milan(MILAN_FILE)], peers: PEERS, invoked: true };
  assert.equal(
    commandLine(cmd, resolverFor({ cluster: ROME, peer: MILAN }, t), true),
    at({ clusters: [rome("rome.yaml"), milan(MILAN_FILE)], peers: PEERS, invoked: true }),
  );
});

Deno.test("targets: helm's context flag, chains with their own clusters, words quoted once", () => {
  const t: Targeting = { clusters: [rome("rome.yaml"), milan(MILAN_FILE)], peers: PEERS, invoked: true };
  const at = resolverFor({ cluster: ROME, peer: MILAN }, t);
  assert.equal(
    commandLine(helm("local", "-n", "liqo", "history", "liqo"), at, true),
    "helm --kubeconfig rome.yaml --kube-context rome -n liqo history liqo",
  );
  assert.equal(
    commandLine(pipe(kubectl("local", "logs", "deploy/cm"), shell("grep", "-i", "api server")), at, true),
    "kubectl --kubeconfig rome.yaml --context rome logs deploy/cm | grep -i 'api server'",
  );
  assert.equal(
    commandLine(
      andThen(liqoctl("remote", "uninstall"), liqoctl("remote", "install", "<provider>")),
      at,
      true,
    ),
    `liqoctl --kubeconfig '${MILAN_FILE}' --context milan uninstall && ` +
      `liqoctl --kubeconfig '${MILAN_FILE}' --context milan install <provider>`,
  );
  assert.equal(printWord("<public IP>"), "<public IP>");
  assert.equal(printWord("jsonpath={.spec.mtu}"), "'jsonpath={.spec.mtu}'");
  assert.equal(printWord("it's"), `'it'"'"'s'`);
});

Deno.test("targets: cheat sheet commands that name a context get the kubeconfig named for it", () => {
  const clusters = [rome("rome.yaml"), milan(null)];
  assert.equal(
    withKubeconfig("kubectl --context rome get nodes", clusters),
    "kubectl --kubeconfig rome.yaml --context rome get nodes",
  );
  assert.equal(
    withKubeconfig("kubectl --context milan get nodes", clusters),
    "kubectl --context milan get nodes",
  );
  assert.equal(withKubeconfig("nc -u -v 203.0.113.50 51840", clusters), "nc -u -v 203.0.113.50 51840");
});
