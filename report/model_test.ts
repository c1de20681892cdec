import assert from "node:assert/strict";
import {
  canonical,
  formatDuration,
  jsonSchema,
  REPORT_KEYS,
  ReportSchema,
  summarize,
  varyingScopes,
} from "./model.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import { publishedSchema } from "./error_doc.ts";

Deno.test("fixture report validates against ReportSchema", () => {
  const r = sampleReport();
  assert.deepEqual(ReportSchema.parse(r), r);
});

Deno.test("ReportSchema rejects a wrong schemaVersion, bad timestamps and unknown statuses", () => {
  // A schema 1 document (remediation as a string) is not a schema 2 report.
  assert.equal(ReportSchema.safeParse({ ...sampleReport(), schemaVersion: "1" }).success, false);
  const v1 = sampleReport();
  (v1.results[5] as unknown as { remediation: string }).remediation = "kubectl get pods";
  assert.equal(ReportSchema.safeParse(v1).success, false);
  // serverVersion is optional, invocation nullable.
  const old = sampleReport({ invocation: null });
  delete old.clusters[0].serverVersion;
  assert.equal(ReportSchema.safeParse(old).success, true);
  assert.equal(ReportSchema.safeParse({ ...sampleReport(), generatedAt: "yesterday" }).success, false);
  const bad = sampleReport();
  (bad.results[0] as { status: string }).status = "ok";
  assert.equal(ReportSchema.safeParse(bad).success, false);
  assert.equal(
    ReportSchema.safeParse({ ...sampleReport(), generatedAt: "2026-03-01T11:00:00+01:00" }).success,
    true,
  );
});

Deno.test("jsonSchema lists the top-level required keys", () => {
  const s = jsonSchema() as { required: string[]; properties: Record<string, unknown>; $schema: string };
  for (
    const k of [
      "schemaVersion",
      "tool",
      "generatedAt",
      "mode",
      "snapshotTakenAt",
      "clusters",
      "peers",
      "results",
      "diagnosis",
      "summary",
      "exitCode",
      "durationMs",
      "peering",
      "cheatSheet",
      "invocation",
    ]
  ) {
    assert.ok(s.required.includes(k), k);
    assert.ok(k in s.properties, k);
  }
  assert.match(s.$schema, /2020-12/);
  JSON.stringify(s); // serialisable
});

Deno.test("summarize counts statuses and the total", () => {
  const s = summarize(sampleReport().results);
  assert.deepEqual(s, { pass: 7, warn: 1, fail: 1, skip: 2, unknown: 1, total: 12 });
});

Deno.test("canonical puts keys in schema order", () => {
  const r = sampleReport();
  const shuffled = Object.fromEntries(Object.entries(r).reverse()) as typeof r;
  // `stopped`, `active`, `preflight` and `changedSinceHealthy` are optional: a passive report that ran to its
  // end has every other key, in order.
  const optional = ["active", "stopped", "preflight", "changedSinceHealthy"];
  assert.deepEqual(Object.keys(canonical(shuffled)), REPORT_KEYS.filter((k) => !optional.includes(k)));
  assert.deepEqual(
    Object.keys(canonical({ ...shuffled, active: null })),
    REPORT_KEYS.filter((k) => k !== "stopped" && k !== "preflight" && k !== "changedSinceHealthy"),
  );
  const stopped = { by: "SIGINT" as const, message: "interrupted" };
  assert.deepEqual(
    Object.keys(canonical({ ...shuffled, active: null, stopped })),
    REPORT_KEYS.filter((k) => k !== "preflight" && k !== "changedSinceHealthy"),
  );
});

Deno.test("varyingScopes and formatDuration", () => {
  assert.deepEqual(varyingScopes(sampleReport().results), { cluster: false, peer: true });
  assert.equal(formatDuration(850), "850ms");
  assert.equal(formatDuration(4800), "4.8s");
  assert.equal(formatDuration(123_000), "2m03s");
});

Deno.test("the shipped schema/report.v1.schema.json is the published schema (report or error document)", async () => {
  const shipped = JSON.parse(
    await Deno.readTextFile(new URL("../schema/report.v1.schema.json", import.meta.url)),
  );
  assert.deepEqual(
    shipped,
    JSON.parse(JSON.stringify(publishedSchema())),
    "regenerate it: deno task schema",
  );
});
