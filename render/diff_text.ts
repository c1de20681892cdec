/**
 * The text and Markdown faces of `flyingfish diff`: the answer first (the earliest newly failing
 * check and its fix), the transitions (downstream ones marked), then the objects behind them — the
 * answer's reads first, the rest by layer — and the readings apart. They see only the diff model.
 */
import type { DiffObjectChange, DiffReport, DiffSide, DiffTransition } from "../report/diff_schema.ts";
import { LAYER_TITLES } from "../report/model.ts";
import { remediationLines } from "../report/remediation.ts";
import { createColors } from "./colors.ts";

/** Options of the text face. */
export interface DiffTextOptions {
  color: boolean;
  /** Every field of every changed object (default: at most 6 per object). */
  verbose?: boolean;
}

const MARK: Record<string, string> = { pass: "✓", warn: "!", fail: "✗", skip: "-", unknown: "?" };
const mark = (s: string | null): string => s === null ? "·" : MARK[s] ?? s;
const FIELDS_SHOWN = 6;

function sideLine(name: string, s: DiffSide): string {
  const clusters = s.clusters.map((c) =>
    `${c.name} (${c.role}; Liqo ${c.liqoVersion ?? "?"}, Kubernetes ${c.serverVersion ?? "?"})`
  ).join(", ");
  return `${name} ${s.label} [${s.mode}, ${s.takenAt}]: ${clusters || "no cluster"} — exit ${s.exitCode}${
    s.diagnosis ? `, diagnosis ${s.diagnosis}` : ""
  }`;
}

function where(t: { cluster: string; peer: string | null }): string {
  return `${t.cluster}${t.peer ? ` peer ${t.peer}` : ""}`;
}

function transitionLine(t: DiffTransition): string {
  const down = t.downstreamOf ? ` (downstream of ${t.downstreamOf})` : "";
  return `${t.id.padEnd(9)} ${mark(t.from)} ${t.from ?? "absent"} → ${mark(t.to)} ${t.to ?? "absent"}  ${
    where(t)
  }: ${t.summary}${down}`;
}

function objectLines(o: DiffObjectChange, verbose: boolean): string[] {
  const head = `${
    o.change === "added" ? "+" : o.change === "removed" ? "-" : "~"
  } [${o.cluster}] ${o.summary}`;
  const fields = verbose ? o.fields : o.fields.slice(0, FIELDS_SHOWN);
  const lines = [
    head,
    ...fields.map((f) =>
      `    ${f.label ? `${f.label} (${f.path})` : f.path}: ${f.before ?? "(none)"} → ${f.after ?? "(none)"}`
    ),
  ];
  if (fields.length < o.fields.length) {
    lines.push(`    … ${o.fields.length - fields.length} more field(s) (-v)`);
  }
  return lines;
}

/** The diff as text. */
export function renderDiffText(d: DiffReport, opts: DiffTextOptions): string {
  const c = createColors(opts.color);
  const out: string[] = [];
  out.push(` ${sideLine("before", d.before)}`, ` ${sideLine("after ", d.after)}`, "");
  if (d.answer) {
    out.push(
      ` ${c.red(c.bold(`what broke ✗ ${d.answer.id}`))} [${LAYER_TITLES[d.answer.layer]}] ${
        where(d.answer)
      }: ${d.answer.summary}`,
      `   was ${d.answer.from ?? "absent"}; it reads ${d.answer.reads.join(", ") || "nothing listed"}`,
    );
    for (const l of remediationLines(d.answer.remediation)) out.push(`   ⚑ ${l}`);
    for (const a of d.answer.alsoNewlyFailing) {
      out.push(`   also newly failing: ✗ ${a.id} ${where(a)}: ${a.summary}`);
    }
    out.push("");
  }
  if (d.transitions.length) {
    out.push(c.bold(" CHECK RESULTS"));
    for (const t of d.transitions) out.push(`  ${transitionLine(t)}`);
    out.push("");
  }
  const answerObjects = d.objects.filter((o) => o.answerReads);
  if (answerObjects.length) {
    out.push(c.bold(` WHAT ${d.answer!.id} READS`));
    for (const o of answerObjects) out.push(...objectLines(o, opts.verbose === true).map((l) => `  ${l}`));
    out.push("");
  }
  const rest = d.objects.filter((o) => !o.answerReads);
  for (const layer of [...new Set(rest.map((o) => o.layer))]) {
    out.push(c.bold(` ${LAYER_TITLES[layer]}`));
    for (const o of rest.filter((x) => x.layer === layer)) {
      out.push(...objectLines(o, opts.verbose === true).map((l) => `  ${l}`));
    }
    out.push("");
  }
  if (d.readings.length) {
    out.push(c.bold(" READINGS") + c.dim(" (move by themselves; not counted)"));
    for (const r of d.readings) {
      out.push(`  [${r.cluster}] ${r.subject}: ${r.what} ${r.before ?? "(none)"} → ${r.after ?? "(none)"}`);
    }
    out.push("");
  }
  for (const n of d.notes) out.push(c.dim(` note: ${n}`));
  if (d.notes.length) out.push("");
  out.push(" ────────────────────────────────────────");
  const s = d.summary;
  out.push(
    ` ${s.newlyFailing} newly failing ⋅ ${s.fixed} fixed ⋅ ${s.newUnknown} new unknown ⋅ ${s.transitions} transition(s) ⋅ ${s.objectsChanged} object(s) changed ⋅ ${s.readings} reading(s)`,
  );
  out.push(
    d.exitCode === 0
      ? " nothing that matters changed"
      : d.exitCode === 1
      ? " changed, but nothing newly fails"
      : ` a check newly fails: ${d.answer?.id ?? "?"}`,
  );
  return out.join("\n") + "\n";
}

const md = (s: string): string => s.replace(/([|\\`*_[\]<>])/g, "\\$1").replace(/\n/g, " ");

/** The diff as Markdown (a ticket comment). */
export function renderDiffMarkdown(d: DiffReport): string {
  const out: string[] = ["# FlyingFish diff", ""];
  for (const [name, s] of [["before", d.before], ["after", d.after]] as const) {
    out.push(`- **${name}**: ${md(sideLine("", s).trim())}`);
  }
  out.push("");
  if (d.answer) {
    out.push(
      `## What broke: ${d.answer.id} (${LAYER_TITLES[d.answer.layer]})`,
      "",
      `${md(where(d.answer))}: ${md(d.answer.summary)} — was ${d.answer.from ?? "absent"}.`,
      "",
    );
    const fix = remediationLines(d.answer.remediation);
    if (fix.length) out.push("```sh", ...fix, "```", "");
    for (const a of d.answer.alsoNewlyFailing) {
      out.push(`- also newly failing: **${a.id}** ${md(where(a))}: ${md(a.summary)}`);
    }
    if (d.answer.alsoNewlyFailing.length) out.push("");
  } else out.push(d.exitCode === 0 ? "Nothing that matters changed." : "Nothing newly fails.", "");
  if (d.transitions.length) {
    out.push("## Check results", "", "| check | before | after | where | summary |", "|---|---|---|---|---|");
    for (const t of d.transitions) {
      out.push(
        `| ${t.id} | ${t.from ?? "—"} | ${t.to ?? "—"} | ${md(where(t))} | ${md(t.summary)}${
          t.downstreamOf ? ` (downstream of ${t.downstreamOf})` : ""
        } |`,
      );
    }
    out.push("");
  }
  if (d.objects.length) {
    out.push(
      "## Objects",
      "",
      "| cluster | object | change | field | before | after |",
      "|---|---|---|---|---|---|",
    );
    for (const o of d.objects) {
      const obj = `${o.answerReads ? "**" : ""}${o.kind} ${
        md(o.namespace ? `${o.namespace}/${o.name}` : o.name)
      }${o.answerReads ? "**" : ""}`;
      if (o.fields.length === 0) out.push(`| ${o.cluster} | ${obj} | ${o.change} | | | |`);
      for (const f of o.fields) {
        out.push(
          `| ${o.cluster} | ${obj} | ${o.change} | ${md(f.label ? `${f.label} (${f.path})` : f.path)} | ${
            md(f.before ?? "—")
          } | ${md(f.after ?? "—")} |`,
        );
      }
    }
    out.push("");
  }
  if (d.readings.length) {
    out.push(
      "## Readings (not counted)",
      "",
      "| cluster | subject | reading | before | after |",
      "|---|---|---|---|---|",
    );
    for (const r of d.readings) {
      out.push(
        `| ${r.cluster} | ${md(r.subject)} | ${md(r.what)} | ${md(r.before ?? "—")} | ${
          md(r.after ?? "—")
        } |`,
      );
    }
    out.push("");
  }
  for (const n of d.notes) out.push(`> note: ${md(n)}`);
  out.push("", `exit ${d.exitCode}`);
  return out.join("\n") + "\n";
}
