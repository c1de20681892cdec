/** Context selection: names, /regex/, ^exclusions; a typo is exit 3, an empty selection too. */
import assert from "node:assert/strict";
import { selectContexts } from "./select.ts";
import { ToolError } from "../errors.ts";

const ALL = ["rome", "milan", "rome-admin", "dev-a", "dev-b"];

Deno.test("select: --all-contexts keeps kubeconfig order; ^ excludes, by name or /regex/", () => {
  assert.deepEqual(selectContexts(ALL, { all: true, patterns: [] }), ALL);
  assert.deepEqual(selectContexts(ALL, { all: true, patterns: ["^/^dev-/", "^rome-admin"] }), [
    "rome",
    "milan",
  ]);
  // An exclusion alone starts from every context.
  assert.deepEqual(selectContexts(ALL, { all: false, patterns: ["^milan"] }), [
    "rome",
    "rome-admin",
    "dev-a",
    "dev-b",
  ]);
});

Deno.test("select: --contexts names and patterns, in kubeconfig order", () => {
  assert.deepEqual(selectContexts(ALL, { all: false, patterns: ["milan", "rome"] }), ["rome", "milan"]);
  assert.deepEqual(selectContexts(ALL, { all: false, patterns: ["/^dev-/", "^dev-b"] }), ["dev-a"]);
});

Deno.test("select: a name that is no context, a bad regex, nothing selected: exit 3", () => {
  assert.throws(
    () => selectContexts(ALL, { all: false, patterns: ["rom"] }),
    (e) => e instanceof ToolError && /no context "rom"/.test(e.message),
  );
  assert.throws(() => selectContexts(ALL, { all: false, patterns: ["/(/"] }), /invalid pattern/);
  assert.throws(() => selectContexts(ALL, { all: false, patterns: ["/^prod/"] }), /no context selected/);
});
