/**
 * The layout promises of the text report, asserted on one report: no line wider than 80 columns
 * (a terminal) or 100 (through a pipe), with `-q` too, and one header per layer in catalog order.
 * Used by text_width_test.ts over every scenario; any test holding a scenario's report can call it.
 */
import assert from "node:assert/strict";
import { renderText } from "../../render/text.ts";
import { displayWidth } from "../../render/wrap.ts";
import { LAYER_TITLES, LAYERS, type Report } from "../../report/model.ts";

const CATALOG_ORDER = LAYERS.map((l) => ` ${LAYER_TITLES[l]}`);

/** Asserts the default and `-q` text of `report` fit 80 and 100 columns, layers once each, in order. */
export function assertTextLayout(report: Report, name: string): void {
  for (const width of [80, 100]) {
    for (const quiet of [false, true]) {
      const what = `${name} at ${width} columns${quiet ? " (-q)" : ""}`;
      const out = renderText(report, { color: false, verbose: false, quiet, width });
      for (const line of out.split("\n")) {
        assert.ok(displayWidth(line) <= width, `${what}: ${displayWidth(line)} columns:\n${line}`);
      }
      if (quiet) continue;
      const headers = out.split("\n").filter((l) => CATALOG_ORDER.includes(l));
      assert.deepEqual(headers, CATALOG_ORDER.filter((h) => headers.includes(h)), `${what}: layer order`);
      assert.equal(new Set(headers).size, headers.length, `${what}: a layer header repeats`);
    }
  }
}
