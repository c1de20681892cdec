/** Layer-wide tests: every TUNNEL check on a healthy peering and on objects without status or spec. */
import assert from "node:assert/strict";
import { milan, rome, run, TUNNEL_CHECKS } from "../../tests/support/tunnel_checks.ts";

Deno.test("healthy base: every tunnel check passes, single and dual", async () => {
  for (const [objs, remote] of [[await rome(), await milan()], [await milan(), await rome()]]) {
    for (const c of TUNNEL_CHECKS) {
      for (const r of [undefined, remote]) {
        const o = await run(c.id, objs, { remote: r });
        assert.equal(
          o.status,
          "pass",
          `${c.id}${r ? " dual" : ""}: ${o.summary}\n${(o.evidence ?? []).join("\n")}`,
        );
      }
    }
  }
});

Deno.test("tunnel checks survive objects without status or spec", async () => {
  for (const base of [await rome(), await milan()]) {
    const objs = base.map((o) =>
      ["Connection", "PublicKey", "GatewayServer", "GatewayClient", "InternalFabric", "FirewallConfiguration"]
          .includes(o.kind ?? "")
        ? { ...o, status: undefined, spec: undefined }
        : o
    );
    for (const c of TUNNEL_CHECKS) {
      const o = await run(c.id, objs, { remote: base });
      assert.ok(["pass", "warn", "fail", "skip", "unknown"].includes(o.status), c.id);
    }
  }
});
