/**
 * The Prometheus way to watch a fleet (docs/fleet.md): every `serve` scraped into one Prometheus.
 * The per-peer families carry `cluster` and `peer`, so one query sees every edge from both ends; the
 * page's recording rules and queries parse as PromQL and use only what serve exports.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
// deno-lint-ignore no-import-prefix -- the Prometheus project's PromQL grammar, test-only
import { parser as promql } from "npm:@prometheus-io/lezer-promql@0.315.0";
import { METRIC_LABELS, METRIC_NAMES, type MetricName } from "../serve/metrics.ts";

const page = await Deno.readTextFile(new URL("../docs/fleet.md", import.meta.url));

/** The PromQL of the page: ```promql blocks and the `expr:` of its rule groups. */
function expressions(): string[] {
  const out: string[] = [];
  for (const [, lang, body] of page.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    if (lang === "promql") out.push(body.trim());
    if (lang === "yaml") {
      const doc = parse(body) as { groups?: { rules: { expr: string }[] }[] };
      for (const g of doc.groups ?? []) for (const r of g.rules) out.push(r.expr);
    }
  }
  return out;
}

Deno.test("fleet via Prometheus: the per-peer families carry cluster and peer", () => {
  for (
    const m of ["flyingfish_peer_broken", "flyingfish_peer_first_broken", "flyingfish_check_status"] as const
  ) {
    assert.ok(METRIC_LABELS[m].includes("cluster") && METRIC_LABELS[m].includes("peer"), m);
  }
});

Deno.test("fleet via Prometheus: docs/fleet.md's rules and queries parse and use only exported metrics and labels", () => {
  const exprs = expressions();
  assert.ok(exprs.length >= 4, `only ${exprs.length} expressions found`);
  for (const expr of exprs) {
    const errors: string[] = [];
    const metrics: string[] = [];
    const grouping: string[] = [];
    promql.parse(expr).iterate({
      enter: (ref) => {
        const n = ref.node;
        if (n.type.isError) errors.push(`syntax error at ${n.from}`);
        if (n.name === "VectorSelector") {
          const id = n.getChild("Identifier");
          if (id) metrics.push(expr.slice(id.from, id.to));
        }
        if (n.name === "GroupingLabels") {
          grouping.push(...n.getChildren("LabelName").map((l) => expr.slice(l.from, l.to)));
        }
      },
    });
    assert.deepEqual(errors, [], expr);
    assert.ok(metrics.length > 0, expr);
    for (const m of metrics) {
      assert.ok((METRIC_NAMES as readonly string[]).includes(m), `${m} is not exported`);
      for (const l of grouping) {
        assert.ok(METRIC_LABELS[m as MetricName].includes(l), `${m} has no label ${l}`);
      }
    }
  }
});
