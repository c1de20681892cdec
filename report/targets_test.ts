import assert from "node:assert/strict";
import { type ClusterAccess, type CommandTarget, retarget, shellQuote, shellSegments } from "./targets.ts";

const ROME: ClusterAccess = {
  name: "rome-4b2a9e",
  clusterId: "rome-4b2a9e",
  context: "rome",
  kubeconfig: "rome.yaml",
};
const MILAN: ClusterAccess = {
  name: "milan-8d1f03",
  clusterId: "milan-8d1f03",
  context: "milan",
  kubeconfig: "/home/me/kube configs/milan.yaml",
};
const BOTH = [ROME, MILAN];
const onRome: CommandTarget = { kind: "cluster", cluster: ROME };

Deno.test("retarget: kubectl, liqoctl and helm get the cluster's kubeconfig and context after the program", () => {
  assert.equal(
    retarget("kubectl -n liqo describe svc gw", onRome, BOTH),
    "kubectl --kubeconfig rome.yaml --context rome -n liqo describe svc gw",
  );
  assert.equal(
    retarget("liqoctl info peer milan-8d1f03", onRome, BOTH),
    "liqoctl --kubeconfig rome.yaml --context rome info peer milan-8d1f03",
  );
  assert.equal(
    retarget("helm -n liqo history liqo", onRome, BOTH),
    "helm --kubeconfig rome.yaml --kube-context rome -n liqo history liqo",
  );
  // The default kubeconfig: the context alone.
  const dflt: CommandTarget = { kind: "cluster", cluster: { ...ROME, kubeconfig: null } };
  assert.equal(retarget("kubectl get pods", dflt, BOTH), "kubectl --context rome get pods");
  // A path with a space is quoted.
  assert.equal(
    retarget("kubectl get pods", { kind: "cluster", cluster: MILAN }, BOTH),
    "kubectl --kubeconfig '/home/me/kube configs/milan.yaml' --context milan get pods",
  );
});

Deno.test("retarget: pipes and && — only the cluster tools change; quotes are respected", () => {
  assert.equal(
    retarget(`kubectl -n liqo logs deploy/cm | grep -i "a | b && c"`, onRome, BOTH),
    `kubectl --kubeconfig rome.yaml --context rome -n liqo logs deploy/cm | grep -i "a | b && c"`,
  );
  assert.equal(
    retarget("helm pull liqo/liqo --untar && kubectl apply -f crds/", onRome, BOTH),
    "helm --kubeconfig rome.yaml --kube-context rome pull liqo/liqo --untar && " +
      "kubectl --kubeconfig rome.yaml --context rome apply -f crds/",
  );
  assert.equal(
    retarget("kubectl get x -o jsonpath='{.a}' | base64 -d | openssl x509 -noout", onRome, BOTH),
    "kubectl --kubeconfig rome.yaml --context rome get x -o jsonpath='{.a}' | base64 -d | openssl x509 -noout",
  );
  assert.equal(retarget("nc -u -v 203.0.113.50 51840", onRome, BOTH), "nc -u -v 203.0.113.50 51840");
  // `kubectl exec … -- wg show`: the flags go before the subcommand, never after `--`.
  assert.equal(
    retarget("kubectl -n t exec gw -c wireguard -- wg show all dump", onRome, BOTH),
    "kubectl --kubeconfig rome.yaml --context rome -n t exec gw -c wireguard -- wg show all dump",
  );
});

Deno.test("retarget: explicit contexts are kept, completed, or filled in", () => {
  // A known context gets its kubeconfig.
  assert.equal(
    retarget("liqoctl uninstall --context milan && liqoctl install <provider> --context milan", onRome, BOTH),
    "liqoctl --kubeconfig '/home/me/kube configs/milan.yaml' --context milan uninstall && " +
      "liqoctl --kubeconfig '/home/me/kube configs/milan.yaml' --context milan install <provider>",
  );
  // A `<cluster>` placeholder of a known cluster is filled in; an unknown one stays.
  assert.equal(
    retarget("kubectl --context <milan-8d1f03> get namespace shop", null, BOTH),
    "kubectl --kubeconfig '/home/me/kube configs/milan.yaml' --context milan get namespace shop",
  );
  assert.equal(
    retarget("kubectl --context <paris-5c3e71> get ns", onRome, BOTH),
    "kubectl --context <paris-5c3e71> get ns",
  );
  // An unknown context, or a kubeconfig already named: left alone.
  assert.equal(retarget("kubectl --context other get ns", onRome, BOTH), "kubectl --context other get ns");
  assert.equal(
    retarget("kubectl --kubeconfig x.yaml get ns", onRome, BOTH),
    "kubectl --kubeconfig x.yaml get ns",
  );
  // No target: nothing inserted.
  assert.equal(retarget("kubectl get ns", null, BOTH), "kubectl get ns");
  // A peer only named: a placeholder context says where to run it.
  assert.equal(
    retarget("kubectl -n t get secret gw", { kind: "named", name: "milan-8d1f03" }, [ROME]),
    "kubectl --context <milan-8d1f03> -n t get secret gw",
  );
});

Deno.test("retarget: liqoctl --remote-kubeconfig <placeholder> names the other end in dual mode", () => {
  assert.equal(
    retarget("liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort", onRome, BOTH),
    "liqoctl --kubeconfig rome.yaml --context rome peer --remote-kubeconfig " +
      "'/home/me/kube configs/milan.yaml' --remote-context milan --gw-server-service-type NodePort",
  );
  assert.equal(
    retarget("liqoctl network reset --remote-kubeconfig <milan-8d1f03 kubeconfig>", onRome, BOTH),
    "liqoctl --kubeconfig rome.yaml --context rome network reset --remote-kubeconfig " +
      "'/home/me/kube configs/milan.yaml' --remote-context milan",
  );
  // Single mode: the placeholder stays.
  assert.equal(
    retarget("liqoctl peer --remote-kubeconfig <kubeconfig>", onRome, [ROME]),
    "liqoctl --kubeconfig rome.yaml --context rome peer --remote-kubeconfig <kubeconfig>",
  );
});

Deno.test("shellSegments and shellQuote", () => {
  assert.deepEqual(shellSegments("a | b && c; d || e"), [[0, 2], [3, 6], [8, 10], [11, 14], [16, 18]]);
  assert.deepEqual(shellSegments(`a "x|y" 'p&&q'`), [[0, 14]]);
  assert.equal(shellQuote("rome.yaml"), "rome.yaml");
  assert.equal(shellQuote("it's here"), `'it'\\''s here'`);
});
