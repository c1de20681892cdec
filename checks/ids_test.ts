import assert from "node:assert/strict";
import { resolveCheckId, resolveSelection, selectCatalog, unknownIdMessage } from "./ids.ts";
import { PASSIVE_CHECKS as CATALOG } from "./catalog.ts";
import { validateCatalog } from "./engine.ts";
import type { CheckContext, CheckDef, Outcome } from "./types.ts";

function refusal(input: string): string {
  const m = resolveCheckId(input, CATALOG);
  assert.equal(m.ok, false, input);
  return unknownIdMessage(m as Extract<typeof m, { ok: false }>);
}

Deno.test("check IDs match ignoring case; other spellings get a did-you-mean", () => {
  assert.deepEqual(resolveCheckId("tun-02", CATALOG), { ok: true, id: "TUN-02" });
  assert.deepEqual(resolveCheckId(" Ipam-04 ", CATALOG), { ok: true, id: "IPAM-04" });
  assert.match(refusal("TUN02"), /^no check "TUN02" — did you mean TUN-02\? \(see `flyingfish checks`\)$/);
  assert.match(refusal("tun-2"), /did you mean TUN-02\?/);
  assert.match(refusal("TUM-02"), /did you mean TUN-02\?/);
  assert.match(refusal("TUN-9"), /did you mean one of TUN-0\d(, TUN-0\d){6}\?/);
  assert.match(refusal("gw"), /did you mean one of GW-01, GW-02/);
  assert.equal(refusal("NOPE-1"), 'no check "NOPE-1" (see `flyingfish checks`)');
});

Deno.test("--only/--skip lists: comma-separated IDs, layer names, errors per unknown entry", () => {
  const sel = resolveSelection(["tun-02,TUN-01", "gw-02", "ipam"], CATALOG);
  assert.deepEqual(sel.errors, []);
  assert.deepEqual(sel.ids.slice(0, 3), ["TUN-02", "TUN-01", "GW-02"]);
  assert.deepEqual(sel.ids.slice(3), CATALOG.filter((c) => c.layer === "ipam").map((c) => c.id));
  const bad = resolveSelection(["TUN02,GW-02,tunel"], CATALOG);
  assert.deepEqual(bad.ids, ["GW-02"]);
  assert.equal(bad.errors.length, 2);
  assert.match(bad.errors[0], /did you mean TUN-02/);
});

const def = (id: string, needs: string[] = []): CheckDef => ({
  id,
  title: id,
  layer: "tunnel",
  needs,
  scope: "single",
  perPeer: false,
  reads: ["pods"],
  explain: { reads: "", decides: "", fixes: "" },
  hops: [],
  run: (): Outcome => ({ status: "pass", summary: "ran" }),
});
const toy = [def("A-01"), def("A-02", ["A-01"]), def("A-03", ["A-02"]), def("B-01"), def("B-02", ["B-01"])];
const ctx = {} as CheckContext;

Deno.test("--only keeps the named checks and what they need, transitively, in catalog order", () => {
  assert.deepEqual(selectCatalog(toy, { only: ["A-03"] }).map((c) => c.id), ["A-01", "A-02", "A-03"]);
  assert.deepEqual(selectCatalog(toy, { only: ["B-02", "A-01"] }).map((c) => c.id), ["A-01", "B-01", "B-02"]);
  // The real catalog stays valid (closed under `needs`) for every single --only.
  for (const c of CATALOG) {
    assert.deepEqual(validateCatalog(selectCatalog(CATALOG, { only: [c.id] })), [], c.id);
  }
});

Deno.test("--skip lists the check and its dependents as disabled skips that read nothing", async () => {
  const sel = selectCatalog(toy, { skip: ["A-02"] });
  assert.deepEqual(sel.map((c) => c.id), ["A-01", "A-02", "A-03", "B-01", "B-02"]);
  const out = await Promise.all(sel.map((c) => c.run(ctx)));
  assert.deepEqual(out.map((o) => o.status), ["pass", "skip", "skip", "pass", "pass"]);
  assert.deepEqual(out[1], { status: "skip", skipKind: "disabled", summary: "skipped (--skip A-02)" });
  assert.deepEqual(out[2], {
    status: "skip",
    skipKind: "disabled",
    summary: "not run: needs A-02 (--skip A-02)",
  });
  assert.deepEqual(sel[1].needs, [], "a skipped check waits for nothing");
  assert.deepEqual(sel[2].reads, []);
  assert.deepEqual(validateCatalog(sel), []);
  // --only and --skip together: the skip wins over a prerequisite --only pulled in.
  const both = selectCatalog(toy, { only: ["A-03"], skip: ["A-01"] });
  assert.deepEqual(both.map((c) => c.id), ["A-01", "A-02", "A-03"]);
  assert.deepEqual((await Promise.all(both.map((c) => c.run(ctx)))).map((o) => o.status), [
    "skip",
    "skip",
    "skip",
  ]);
  assert.equal(toy[1].reads.length, 1, "the catalog itself is untouched");
});
