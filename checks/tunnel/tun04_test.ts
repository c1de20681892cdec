/** TUN-04 WireGuard keys symmetric. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import {
  milan,
  MILAN_NS,
  NEW_MILAN_KEY,
  probes,
  rome,
  ROME_NS,
  run,
  text,
} from "../../tests/support/tunnel_checks.ts";

Deno.test("TUN-04: PublicKey missing, mislabelled, elsewhere, not configured", async () => {
  let objs = (await rome()).filter((o) => o.kind !== "PublicKey");
  let o = await run("TUN-04", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /PublicKey of peer milan-8d1f03 missing/);

  objs = await rome();
  find(objs, "PublicKey", "milan-8d1f03", ROME_NS).metadata.labels!["liqo.io/remote-cluster-id"] = "milan";
  o = await run("TUN-04", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /mislabelled or wrong namespace/);
  assert.match(text(o), /labelled liqo\.io\/remote-cluster-id=milan, expected milan-8d1f03/);

  objs = await rome();
  find(objs, "PublicKey", "milan-8d1f03", ROME_NS).metadata.namespace = "default";
  o = await run("TUN-04", objs);
  assert.match(text(o), /lives in default, not the gateway namespace/);

  o = await run("TUN-04", await rome(), { probes: probes({ peer: NEW_MILAN_KEY }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /wg peers do not include/);
});

Deno.test("TUN-04 dual: stale PublicKey after the peer's gateway was recreated", async () => {
  const m = await milan();
  find(m, "Secret", "gw-rome-4b2a9e", MILAN_NS).data = { publicKey: NEW_MILAN_KEY };
  const p = probes({}, { own: NEW_MILAN_KEY });
  const o = await run("TUN-04", await rome(), { remote: m, probes: p });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^stale PublicKey after a gateway was recreated/);
  assert.match(
    text(o),
    new RegExp(`milan-8d1f03 liqo-tunnel public-key: ${NEW_MILAN_KEY.replace("+", "\\+")}`),
  );
  // milan's own view is consistent
  assert.equal((await run("TUN-04", m, { remote: await rome(), probes: p })).status, "pass");
});
