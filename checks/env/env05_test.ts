import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_05, parseKernel } from "./env05.ts";
import { crashLoop, runner, setCm, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_05]);

Deno.test("parseKernel reads distribution kernel strings", () => {
  assert.deepEqual(parseKernel("6.8.0-51-generic"), [6, 8, 0]);
  assert.deepEqual(parseKernel("5.4.0-1103-aws"), [5, 4, 0]);
  assert.deepEqual(parseKernel("4.18.0-553.el8_10.x86_64"), [4, 18, 0]);
  assert.deepEqual(parseKernel("5.10.0-28-cloud-amd64"), [5, 10, 0]);
  assert.deepEqual(parseKernel("6.1"), [6, 1, 0]);
  assert.equal(parseKernel("unknown"), null);
  assert.equal(parseKernel(undefined), null);
});

Deno.test("ENV-05 passes on healthy bases, fails per low node, ignores virtual nodes", async () => {
  for (const c of ["rome", "milan"] as const) {
    assert.equal((await run("ENV-05", await baseObjects(c))).status, "pass");
  }
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-worker-1").status.nodeInfo.kernelVersion = "5.4.0-150-generic";
  find(objs, "Node", "milan-8d1f03").status.nodeInfo = { kernelVersion: "4.0.0" };
  crashLoop(
    find(objs, "Pod", "liqo-fabric-m4q9d", "liqo"),
    "kernel version 5.4.0 does not satisfy the minimum requirements 5.10.0",
  );
  const o = await run("ENV-05", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-worker-1/);
  assert.doesNotMatch(o.summary, /milan-8d1f03/);
  assert.match(
    text(o),
    /liqo\/liqo-fabric-m4q9d container fabric: .*does not satisfy the minimum requirements 5\.10\.0/,
  );
  assert.match(fixText(o.remediation), /requirements\.kernel\.enabled=false/);
});

Deno.test("ENV-05 is unknown for unparsable kernels and skips with networking disabled", async () => {
  const objs = await baseObjects("milan");
  find(objs, "Node", "milan-worker-2").status.nodeInfo.kernelVersion = "";
  const o = await run("ENV-05", objs);
  assert.equal(o.status, "unknown");
  assert.match(text(o), /milan-worker-2: kernel version not reported/);
  const off = await baseObjects("milan");
  setCm(off, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  assert.equal((await run("ENV-05", off)).status, "skip");
});
