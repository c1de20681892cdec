/** The format validator itself: it accepts good reports and catches the problems it claims to. */
import assert from "node:assert/strict";
import { jsonSchema } from "../../report/model.ts";
import { sampleReport } from "../support/report_fixture.ts";
import { renderHtml } from "../../render/html.ts";
import { assertAllFormats, externalReferences, junitTestcases, validateJsonSchema } from "./formats.ts";

function doc(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(sampleReport()));
}

Deno.test("assertAllFormats accepts the sample report (with and without a diagnosis)", () => {
  assertAllFormats(doc(), "sample");
  const healthy = sampleReport({ diagnosis: null, exitCode: 0 });
  assertAllFormats(JSON.parse(JSON.stringify(healthy)), "healthy sample");
});

Deno.test("validateJsonSchema catches type, enum, required, extra, const, range and date-time errors", () => {
  const schema = jsonSchema();
  const cases: [string, (d: Record<string, unknown>) => void, RegExp][] = [
    ["missing", (d) => delete d.summary, /missing required property summary/],
    ["extra", (d) => (d.extra = 1), /unexpected property extra/],
    ["const", (d) => (d.schemaVersion = "1"), /\$\.schemaVersion: "1" is not "2"/],
    ["enum", (d) => (d.mode = "offline"), /not in enum/],
    ["type", (d) => (d.durationMs = "5"), /\$\.durationMs: string is not of type number/],
    ["integer", (d) => (d.exitCode = 1.5), /\$\.exitCode: number is not of type integer/],
    ["maximum", (d) => (d.exitCode = 4), /violates maximum 3/],
    ["minimum", (d) => (d.durationMs = -1), /violates minimum 0/],
    ["date-time", (d) => (d.generatedAt = "yesterday"), /generatedAt/],
    ["nullable", (d) => (d.snapshotTakenAt = 5), /string\|null/],
    [
      "nested",
      (d) => ((d.results as Record<string, unknown>[])[0].status = "ok"),
      /\$\.results\[0\]\.status/,
    ],
    ["anyOf", (d) => (d.diagnosis = { id: "X" }), /anyOf|missing required/],
  ];
  for (const [name, mutate, want] of cases) {
    const d = doc();
    mutate(d);
    const errors = validateJsonSchema(schema, d);
    assert.ok(errors.some((e) => want.test(e)), `${name}: ${JSON.stringify(errors)}`);
    assert.throws(() => assertAllFormats(d), name);
  }
  assert.deepEqual(validateJsonSchema(schema, doc()), []);
});

Deno.test("validateJsonSchema refuses keywords it does not implement", () => {
  assert.match(validateJsonSchema({ uniqueItems: true }, [1, 1]).join(), /unsupported JSON Schema keyword/);
  assert.match(validateJsonSchema({ type: "string", format: "email" }, "x").join(), /unsupported format/);
  assert.deepEqual(validateJsonSchema({ $defs: { a: { type: "string" } }, $ref: "#/$defs/a" }, "x"), []);
  assert.equal(validateJsonSchema({ $defs: { a: { type: "string" } }, $ref: "#/$defs/a" }, 1).length, 1);
  assert.equal(validateJsonSchema({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1).length, 1);
});

Deno.test("validateJsonSchema checks every key against propertyNames (zod's records)", () => {
  const record = {
    type: "object",
    propertyNames: { enum: ["echo", "client"] },
    additionalProperties: { type: "string" },
  };
  assert.deepEqual(validateJsonSchema(record, { echo: "a", client: "b" }), []);
  assert.match(
    validateJsonSchema(record, { echo: "a", other: "b" }).join(),
    /\{key "other"\}: "other" not in enum/,
  );
  assert.match(
    validateJsonSchema({ propertyNames: { type: "string", minLength: 2 } }, { a: 1 }).join(),
    /length 1 violates minLength 2/,
  );
  // A record's values still answer to additionalProperties.
  assert.match(validateJsonSchema(record, { echo: 1 }).join(), /\$\.echo: integer is not of type string/);
  // The published schema holds records (the active block's images): a report with one validates.
  assert.ok(JSON.stringify(jsonSchema()).includes('"propertyNames"'));
});

Deno.test("externalReferences finds anything a browser would fetch, not anchors", () => {
  assert.deepEqual(externalReferences(renderHtml(sampleReport())), []);
  for (
    const bad of [
      `<script src="x.js"></script>`,
      `<link rel="stylesheet" href="https://cdn/x.css">`,
      `<a href="http://example">x</a>`,
      `<style>body{background:url(http://x/y.png)}</style>`,
      `<style>@import "x.css";</style>`,
      `<img src="data:,">`,
    ]
  ) assert.ok(externalReferences(bad).length > 0, bad);
  assert.deepEqual(externalReferences(`<a href="#GW-02">x</a><svg xmlns="http://www.w3.org/2000/svg"/>`), []);
});

Deno.test("junitTestcases reads names and failures", () => {
  const xml = `<testsuites><testsuite><testcase name="A-1 x"/><testcase name="B-2 y">` +
    `<failure message="m">d</failure></testcase></testsuite></testsuites>`;
  assert.deepEqual(junitTestcases(xml), [{ name: "A-1 x", failed: false }, { name: "B-2 y", failed: true }]);
});
