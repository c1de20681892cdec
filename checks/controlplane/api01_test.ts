import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import type { CheckDef } from "../types.ts";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { API_01 } from "./api01.ts";
import { fcCondition, runner, text } from "../../tests/support/controlplane_checks.ts";

const check = (id: string): CheckDef => [API_01].find((c) => c.id === id)!;
const run = runner([API_01]);

Deno.test("API-01 passes on the consumer and skips on the provider", async () => {
  const o = await run("API-01", await baseObjects("rome"));
  assert.equal(o.status, "pass");
  assert.match(text(o), /not dialled from here: network probes disabled/);
  const p = await run("API-01", await baseObjects("milan"));
  assert.equal(p.status, "skip");
  assert.match(p.summary, /does not consume this peer's API/);
});

Deno.test("API-01 fails on APIServerStatus=Error, saying whether it is reachable from here", async () => {
  const objs = await baseObjects("rome");
  Object.assign(fcCondition(objs, "milan-8d1f03", null, "APIServerStatus"), {
    status: "Error",
    reason: "APIServerNotReady",
  });
  let o = await run("API-01", objs, { probes: true, tls: { outcome: "ok", detail: "TLS 1.3", ms: 12 } });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /reachable from here but not from the cluster/);
  o = await run("API-01", objs, { probes: true, tls: { outcome: "failed", detail: "connection refused" } });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /not reachable from the cluster/);
  assert.match(text(o), /from here: https:\/\/203\.0\.113\.20:6443 not reachable: connection refused/);
  assert.match(fixText(o.remediation), /--in-band/);
});

Deno.test("API-01 passes when reachable from the cluster but not from here", async () => {
  const o = await run("API-01", await baseObjects("rome"), {
    probes: true,
    tls: { outcome: "failed", detail: "timeout" },
  });
  assert.equal(o.status, "pass");
  assert.match(o.summary, /reachable from the cluster but not from here/);
  const u = await run("API-01", await baseObjects("rome"), {
    probes: true,
    tls: { outcome: "unavailable", detail: "permission denied" },
  });
  assert.match(text(u), /not dialled from here: permission denied/);
});

Deno.test("API-01 is unknown without the APIServerStatus condition", async () => {
  const objs = await baseObjects("rome");
  find(objs, "ForeignCluster", "milan-8d1f03").status.conditions = [];
  assert.equal((await run("API-01", objs)).status, "unknown");
});

Deno.test("API-01 needs API-02 (a broken in-band path explains APIServerStatus=Error)", () => {
  assert.deepEqual(check("API-01").needs, ["API-02"]);
});
