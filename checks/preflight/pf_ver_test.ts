import assert from "node:assert/strict";
import { kubernetesWindow, parseVersion, PF_VER } from "./pf_ver.ts";
import { pairContext, solo } from "../../tests/support/preflight_checks.ts";
import { contextOf } from "../../tests/support/fixtures.ts";

Deno.test("PF-VER: the window per Liqo minor, and version parsing", () => {
  assert.deepEqual(kubernetesWindow("1.2"), [33, 35]);
  assert.deepEqual(kubernetesWindow("1.0"), [29, 31]);
  assert.equal(kubernetesWindow("0.10"), null);
  assert.deepEqual(parseVersion("v1.31.4+k3s1"), [1, 31, 4]);
  assert.deepEqual(parseVersion("1.30.2-eks-1552ad0"), [1, 30, 2]);
});

Deno.test("PF-VER: in the window passes; below fails; newer warns; liqoctl skew fails", async () => {
  const [r, m] = [await solo("rome-solo"), await solo("milan-solo")];
  assert.equal((await PF_VER.run(pairContext(r, m))).status, "pass");
  const old = await PF_VER.run(pairContext(r, m, { serverVersion: ["v1.34.2", "v1.30.5"] }));
  assert.equal(old.status, "fail");
  assert.match(old.summary, /v1\.30\.5 is below Liqo 1\.2's supported 1\.33–1\.35/);
  const newer = await PF_VER.run(pairContext(r, m, { serverVersion: ["v1.36.0", "v1.34.2"] }));
  assert.equal(newer.status, "warn");
  const base = pairContext(r, m);
  const cli = await PF_VER.run(contextOf(base.cluster, {
    remote: base.remote,
    options: {
      preflight: {
        serverSide: null,
        serviceType: null,
        port: null,
        mtu: null,
        liqoctl: { version: "v1.1.0", detail: "" },
      },
    },
  }));
  assert.equal(cli.status, "fail");
  assert.match(cli.summary, /liqoctl v1\.1\.0 on this host does not match/);
});
