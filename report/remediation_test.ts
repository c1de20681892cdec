import assert from "node:assert/strict";
import {
  commandsOf,
  parseRemediation,
  remediationLines,
  remediationText,
  shellCommentIndex,
} from "./remediation.ts";

Deno.test("parseRemediation: commands, trailing comments, remarks that introduce the next command", () => {
  const text = [
    "kubectl -n liqo-tenant-rome describe svc gw-rome   # events say why no address was assigned",
    "# no LoadBalancer controller (bare metal, kind): install one, e.g. MetalLB",
    "# cloud load balancer without UDP support: use a NodePort:",
    "liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort",
    "",
    'kubectl -n liqo logs deploy/liqo-controller-manager | grep -i "api server"',
  ].join("\n");
  assert.deepEqual(parseRemediation(text), [
    {
      command: "kubectl -n liqo-tenant-rome describe svc gw-rome",
      comment: "events say why no address was assigned",
    },
    { command: null, comment: "no LoadBalancer controller (bare metal, kind): install one, e.g. MetalLB" },
    {
      command: "liqoctl peer --remote-kubeconfig <kubeconfig> --gw-server-service-type NodePort",
      comment: "cloud load balancer without UDP support: use a NodePort:",
    },
    { command: 'kubectl -n liqo logs deploy/liqo-controller-manager | grep -i "api server"', comment: null },
  ]);
  assert.deepEqual(parseRemediation(null), []);
  assert.deepEqual(parseRemediation("\n  \n"), []);
});

Deno.test("parseRemediation: a remark that does not end with ':' does not annotate the next command", () => {
  assert.deepEqual(parseRemediation("# 3. keys: each side's key is the other's\nkubectl logs x"), [
    { command: null, comment: "3. keys: each side's key is the other's" },
    { command: "kubectl logs x", comment: null },
  ]);
});

Deno.test("parseRemediation: prose ending in a command, a trailing parenthetical remark split off", () => {
  assert.deepEqual(
    parseRemediation(
      "Align rome on v1.2.1: liqoctl install <provider> --context rome --version v1.2.1 (same options as before)",
    ),
    [{
      command: "liqoctl install <provider> --context rome --version v1.2.1",
      comment: "Align rome on v1.2.1: (same options as before)",
    }],
  );
  assert.deepEqual(
    parseRemediation("On the provider: kubectl -n liqo get ip x; kubectl -n liqo get deploy y"),
    [
      { command: "kubectl -n liqo get ip x; kubectl -n liqo get deploy y", comment: "On the provider:" },
    ],
  );
  // An unbalanced command (the sentence goes on after it) stays prose.
  const prose = "Upgrade the kernel (e.g. Ubuntu: helm x && sudo reboot), or replace the node.";
  assert.deepEqual(parseRemediation(prose), [{ command: null, comment: prose }]);
  // A program named mid-sentence is not a command.
  const mention =
    "If the address is wrong, set it (Helm value / liqoctl install --api-server-url) and re-peer";
  assert.deepEqual(parseRemediation(mention), [{ command: null, comment: mention }]);
});

Deno.test("shellCommentIndex ignores # inside quotes and words", () => {
  assert.equal(shellCommentIndex(`kubectl get x -o jsonpath='{.a # b}'   # why`), 39);
  assert.equal(shellCommentIndex(`echo "a # b"`), -1);
  assert.equal(shellCommentIndex(`curl http://x/#frag`), -1);
});

Deno.test("remediationLines: comments that introduce go above, short ones beside; commandsOf", () => {
  const steps = parseRemediation(
    "kubectl describe node n1   # see ENV-07\n# to reschedule it now:\nkubectl delete pod p --force",
  );
  assert.deepEqual(remediationLines(steps), [
    "kubectl describe node n1   # see ENV-07",
    "# to reschedule it now:",
    "kubectl delete pod p --force",
  ]);
  assert.deepEqual(commandsOf(steps), ["kubectl describe node n1", "kubectl delete pod p --force"]);
  assert.equal(remediationText([]), null);
  assert.equal(remediationText([{ command: null, comment: "just a remark" }]), "# just a remark");
});
