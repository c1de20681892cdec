import assert from "node:assert/strict";
import { PF_KRN } from "./pf_krn.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";

Deno.test("PF-KRN: a node below 5.10 fails by name; a node the gateway and fabric avoid is not judged", async () => {
  const m = await solo("milan-solo");
  const w2 = m.find((o) => o.kind === "Node" && o.metadata.name === "milan-worker-2")!;
  (w2 as { status: { nodeInfo: { kernelVersion: string } } }).status.nodeInfo.kernelVersion =
    "4.18.0-553.el8";
  const fail = await PF_KRN.run(pairContext(await solo("rome-solo"), m));
  assert.equal(fail.status, "fail");
  assert.match(fail.summary, /milan-8d1f03 \(provider\) node milan-worker-2/);
  // Tainted away from every placement: listed, not judged.
  (w2 as { spec: Record<string, unknown> }).spec = {
    taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }],
  };
  const off = await PF_KRN.run(pairContext(await solo("rome-solo"), m));
  assert.equal(off.status, "pass", off.summary);
  assert.ok(
    off.evidence?.some((e) =>
      /milan-worker-2: hosts no gateway or fabric pod \(taint dedicated:NoSchedule/.test(e)
    ),
  );
});
