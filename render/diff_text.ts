/**
 * The text and Markdown faces of `flyingfish diff`: the answer first (the earliest newly failing
 * check and its fix), the transitions (downstream ones marked), then the objects behind them — the
 * answer's reads first, the rest by layer — and the readings apart. They see only the diff model.
 */
import type { DiffObjectChange, DiffReport, DiffSide, DiffTransition } from "../report/diff_schema.ts";
import { LAYER_TITLES } from "../report/model.ts";
import { remediationLines } from "../report/remediation.ts";
import { createColors } from "./colors.ts";
import { displayWidth, PIPE_WIDTH, wrapCommand, wrapWords } from "./wrap.ts";

/** Options of the text face. */
export interface DiffTextOptions {
  color: boolean;
  /** Every field of every changed object (default: at most 6 per object). */
  verbose?: boolean;
  /** Columns to wrap to (the terminal's; default {@link PIPE_WIDTH}, as `check` through a pipe). */
  width?: number;
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

/**
 * Fix lines under `⚑`, as `check` lays them out: comments wrap as comments (`#` on every line),
 * commands wrap with ` \` continuations so they still paste as one command (never cut).
 */
function fixLines(lines: readonly string[], width: number): string[] {
  const out: string[] = [];
  const comment = (text: string, first: string, rest: string) =>
    wrapWords(text, width, { first: `${first}# `, rest: `${rest}# ` });
  for (const l of lines) {
    if (l.startsWith("# ")) {
      out.push(...comment(l.slice(2), "   ⚑ ", "     "));
      continue;
    }
    const at = l.indexOf("   # ");
    const [cmd, note] = at < 0 ? [l, null] : [l.slice(0, at), l.slice(at + 5)];
    const wrapped = wrapCommand(cmd, width, { first: "   ⚑ ", rest: "         " });
    const last = wrapped.length - 1;
    if (note === null) out.push(...wrapped);
    else if (displayWidth(`${wrapped[last]}   # ${note}`) <= width) {
      out.push(...wrapped.slice(0, last), `${wrapped[last]}   # ${note}`);
    } else out.push(...wrapped, ...comment(note, "     ", "     "));
  }
  return out;
}

/** The diff as text, wrapped to `opts.width` (a hanging indent under each line's lead). */
export function renderDiffText(d: DiffReport, opts: DiffTextOptions): string {
  const c = createColors(opts.color);
  const width = opts.width ?? PIPE_WIDTH;
  const out: string[] = [];
  /** One plain line wrapped, continuation lines `rest` columns in. */
  const put = (line: string, rest: number) => {
    out.push(...wrapWords(line, width, { first: "", rest: " ".repeat(rest) }));
  };
  put(` ${sideLine("before", d.before)}`, 3);
  put(` ${sideLine("after ", d.after)}`, 3);
  out.push("");
  if (d.answer) {
    // Wrapped plain, then the lead coloured (escape sequences would count as columns).
    const lead = `what broke ✗ ${d.answer.id}`;
    const head = wrapWords(
      ` ${lead} [${LAYER_TITLES[d.answer.layer]}] ${where(d.answer)}: ${d.answer.summary}`,
      width,
      { first: "", rest: "   " },
    );
    head[0] = head[0].replace(lead, c.red(c.bold(lead)));
    out.push(...head);
    put(`   was ${d.answer.from ?? "absent"}; it reads ${d.answer.reads.join(", ") || "nothing listed"}`, 5);
    out.push(...fixLines(remediationLines(d.answer.remediation), width));
    for (const a of d.answer.alsoNewlyFailing) {
      put(`   also newly failing: ✗ ${a.id} ${where(a)}: ${a.summary}`, 5);
    }
    out.push("");
  }
  if (d.transitions.length) {
    out.push(c.bold(" CHECK RESULTS"));
    for (const t of d.transitions) put(`  ${transitionLine(t)}`, 12);
    out.push("");
  }
  const objects = (o: DiffObjectChange) => {
    objectLines(o, opts.verbose === true).forEach((l, i) => put(`  ${l}`, i === 0 ? 6 : 8));
  };
  const answerObjects = d.objects.filter((o) => o.answerReads);
  if (answerObjects.length) {
    out.push(c.bold(` WHAT ${d.answer!.id} READS`));
    for (const o of answerObjects) objects(o);
    out.push("");
  }
  const rest = d.objects.filter((o) => !o.answerReads);
  for (const layer of [...new Set(rest.map((o) => o.layer))]) {
    out.push(c.bold(` ${LAYER_TITLES[layer]}`));
    for (const o of rest.filter((x) => x.layer === layer)) objects(o);
    out.push("");
  }
  if (d.readings.length) {
    out.push(c.bold(" READINGS") + c.dim(" (move by themselves; not counted)"));
    for (const r of d.readings) {
      put(`  [${r.cluster}] ${r.subject}: ${r.what} ${r.before ?? "(none)"} → ${r.after ?? "(none)"}`, 6);
    }
    out.push("");
  }
  for (const n of d.notes) {
    out.push(...wrapWords(`note: ${n}`, width, { first: " ", rest: "       " }).map((l) => c.dim(l)));
  }
  if (d.notes.length) out.push("");
  out.push(" ────────────────────────────────────────");
  const s = d.summary;
  put(
    ` ${s.newlyFailing} newly failing ⋅ ${s.fixed} fixed ⋅ ${s.newUnknown} new unknown ⋅ ${s.transitions} transition(s) ⋅ ${s.objectsChanged} object(s) changed ⋅ ${s.readings} reading(s)`,
    1,
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
