import assert from "node:assert/strict";
import { fix, kubectl, liqoctl, remoteKubeconfig, step } from "../checks/remediation.ts";
import { commandsOf, fixText, printSteps, remediationLines, remediationText } from "./remediation.ts";

Deno.test("printSteps: a check's steps as report steps; untargeted, another cluster is a placeholder", () => {
  const steps = fix(
    step(kubectl("local", "describe", "node", "n1"), "see ENV-07"),
    "to reschedule it now:",
    kubectl("local", "delete", "pod", "p", "--force"),
    liqoctl("consumer", "peer", remoteKubeconfig("provider")),
  );
  assert.deepEqual(printSteps(steps), [
    { command: "kubectl describe node n1", comment: "see ENV-07" },
    { command: "kubectl delete pod p --force", comment: "to reschedule it now:" },
    {
      command: "liqoctl --kubeconfig <consumer kubeconfig> peer --remote-kubeconfig <provider kubeconfig>",
      comment: null,
    },
  ]);
  assert.deepEqual(printSteps([]), []);
});

Deno.test("remediationLines: comments that introduce go above, short ones beside; commandsOf; fixText", () => {
  const steps = printSteps(
    fix(
      step(kubectl("local", "describe", "node", "n1"), "see ENV-07"),
      "to reschedule it now:",
      kubectl("local", "delete", "pod", "p", "--force"),
    ),
  );
  assert.deepEqual(remediationLines(steps), [
    "kubectl describe node n1   # see ENV-07",
    "# to reschedule it now:",
    "kubectl delete pod p --force",
  ]);
  assert.deepEqual(commandsOf(steps), ["kubectl describe node n1", "kubectl delete pod p --force"]);
  assert.equal(remediationText([]), null);
  assert.equal(remediationText([{ command: null, comment: "just a remark" }]), "# just a remark");
  assert.equal(fixText(undefined), "");
  assert.equal(fixText(fix("a remark", kubectl("local", "get", "ns"))), "# a remark\nkubectl get ns");
});
