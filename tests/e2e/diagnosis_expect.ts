/**
 * What a diagnosis must tell a user, for scenarios that carry a `diagnosis.yaml` beside their
 * `scenario.yaml`: the diagnosed check and where (cluster, peer), phrases of its summary or fix (the
 * node, the object, the cause), and exactly which other root failures it lists in `alsoFailing`
 * (several independent faults), each with its own phrases. The text report, rendered from the same
 * JSON, must carry one `also failing:` line per entry. Asserted by the scenario matrix on the same run.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { z } from "zod";
import { scenariosRoot } from "../../fakekube/mod.ts";
import { renderText } from "../../render/text.ts";
import { remediationText } from "../../report/remediation.ts";
import type { ScenarioRun } from "./harness.ts";

const Where = z.strictObject({
  id: z.string(),
  cluster: z.string(),
  peer: z.string().nullable(),
  /** Phrases of the summary (or, for the diagnosis, its fix) a user needs: the node, the object, the cause. */
  text: z.array(z.string()).min(1),
});
const DiagnosisFile = z.strictObject({ diagnosis: Where.nullable(), alsoFailing: z.array(Where) });
type DiagnosisFile = z.infer<typeof DiagnosisFile>;

/** The scenario's diagnosis.yaml, or null when it has none. */
export async function diagnosisExpectation(name: string): Promise<DiagnosisFile | null> {
  const url = new URL(`${name}/diagnosis.yaml`, scenariosRoot());
  let text: string;
  try {
    text = await Deno.readTextFile(url);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  return DiagnosisFile.parse(parse(text));
}

/** Asserts a run's diagnosis against the expectation. */
export function assertDiagnosis(name: string, want: DiagnosisFile, run: ScenarioRun): void {
  const d = run.report.diagnosis;
  const ctx = `${name}: diagnosis ${JSON.stringify(d, null, 1)}`;
  if (want.diagnosis === null) {
    assert.equal(d, null, ctx);
    return;
  }
  assert.ok(d, ctx);
  assert.deepEqual([d.id, d.cluster, d.peer], [
    want.diagnosis.id,
    want.diagnosis.cluster,
    want.diagnosis.peer,
  ], ctx);
  const said = `${d.summary}\n${remediationText(d.remediation) ?? ""}`;
  for (const t of want.diagnosis.text) {
    assert.ok(said.includes(t), `${ctx}\n=> diagnosis lacks ${JSON.stringify(t)}`);
  }
  const also: { id: string; cluster: string; peer: string | null; summary: string }[] = d.alsoFailing;
  assert.deepEqual(
    also.map((f) => `${f.id}@${f.cluster}#${f.peer ?? ""}`),
    want.alsoFailing.map((f) => `${f.id}@${f.cluster}#${f.peer ?? ""}`),
    `${ctx}\n=> alsoFailing`,
  );
  want.alsoFailing.forEach((w, i) => {
    for (const t of w.text) {
      assert.ok(also[i].summary.includes(t), `${ctx}\n=> ${w.id} lacks ${JSON.stringify(t)}`);
    }
    // every entry is a reported failure, not a hidden one
    assert.ok(
      run.report.results.some((r: { id: string; cluster: string; peer: string | null; status: string }) =>
        r.id === w.id && r.cluster === w.cluster && r.peer === w.peer && r.status === "fail"
      ),
      `${ctx}\n=> ${w.id} is not a failed result`,
    );
  });
  const text = renderText(run.report, { color: false, verbose: false, quiet: false });
  const lines = text.split("\n").filter((l) => l.includes("also failing: ✗"));
  assert.equal(lines.length, want.alsoFailing.length, text.slice(-1500));
  want.alsoFailing.forEach((w, i) => assert.ok(lines[i].includes(` ${w.id} `), lines[i]));
}
