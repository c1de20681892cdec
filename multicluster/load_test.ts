import assert from "node:assert/strict";
import { UrgentFirst } from "./load.ts";
import { planFor, ViewLoader } from "../diagnose/views.ts";
import { WARMUP_READS } from "../diagnose/run.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import type { ClusterSource } from "../kube/source.ts";
import { baseObjects } from "../tests/support/fixtures.ts";
import { listsOf, memorySource } from "../tests/support/fuzz.ts";

/** `source`, logging each list request (kind and scope) as it is sent. */
function logged(source: ClusterSource, log: string[]): ClusterSource {
  return {
    ...source,
    list: (spec, scope, o) => {
      log.push(`${spec.plural} ${JSON.stringify(scope ?? null)}${o?.urgent ? " urgent" : ""}`);
      return source.list(spec, scope, o);
    },
  };
}

Deno.test("urgent first: held reads wait for the hold, the warm-up reads do not; the same requests, each once", async () => {
  const lists = listsOf(await baseObjects("rome"));
  const plan = planFor(PASSIVE_CHECKS.filter((c) => !c.active));
  const free: string[] = [];
  await new ViewLoader(logged(memorySource(lists, "rome"), free), plan, WARMUP_READS).view();

  const held: string[] = [];
  let release!: () => void;
  const hold = new Promise<void>((r) => release = r);
  const loader = new ViewLoader(logged(memorySource(lists, "rome"), held), plan, WARMUP_READS, hold);
  await loader.ready(WARMUP_READS);
  const early = held.length;
  assert.ok(early > 0 && early < free.length, `${early} of ${free.length} before the hold`);
  assert.ok(held.every((r) => r.endsWith(" urgent")), held.join("\n"));
  release();
  await loader.view();
  assert.deepEqual([...held].sort(), [...free].sort());
  assert.equal(new Set(held).size, held.length, "a request sent twice");
});

Deno.test("UrgentFirst: open once every started cluster has left (each leaving counts once)", async () => {
  const gate = new UrgentFirst();
  const a = gate.enter(), b = gate.enter();
  let opened = false;
  gate.open.then(() => opened = true);
  a();
  a();
  await Promise.resolve();
  assert.equal(opened, false);
  b();
  await gate.open;
  assert.equal(opened, true);
});
