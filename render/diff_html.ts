/**
 * `flyingfish diff` as HTML: a self-contained page, and the section the HTML report adds under
 * "What changed since it last worked" (watch and serve). It sees only the diff model.
 */
import type { DiffReport } from "../report/diff_schema.ts";
import { remediationLines } from "../report/remediation.ts";

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML (element content and attribute values). */
function htmlEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]);
}

/** The diff as one self-contained HTML page. */
export function renderDiffHtml(d: DiffReport): string {
  const e = htmlEscape;
  const rows = (cells: string[][]) =>
    cells.map((r) => `<tr>${r.map((c) => `<td>${e(c)}</td>`).join("")}</tr>`).join("");
  const parts: string[] = [];
  parts.push(`<h1>FlyingFish diff</h1>`);
  parts.push(
    `<p>before: ${e(d.before.label)} (${e(d.before.takenAt)}, exit ${d.before.exitCode})<br>after: ${
      e(d.after.label)
    } (${e(d.after.takenAt)}, exit ${d.after.exitCode})</p>`,
  );
  parts.push(diffHtmlSection(d));
  if (d.readings.length) {
    parts.push(
      `<h2>Readings (not counted)</h2><table><tr><th>cluster</th><th>subject</th><th>reading</th><th>before</th><th>after</th></tr>${
        rows(d.readings.map((r) => [r.cluster, r.subject, r.what, r.before ?? "—", r.after ?? "—"]))
      }</table>`,
    );
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>FlyingFish diff</title><style>` +
    `body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}` +
    `td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}.fail{color:#b00}` +
    `</style></head><body>${parts.join("\n")}<p>exit ${d.exitCode}</p></body></html>\n`;
}

/**
 * The answer, transitions and object changes as an HTML fragment: the page above, and the section
 * `report`/`serve` add under "What changed since it last worked".
 */
export function diffHtmlSection(d: DiffReport): string {
  const e = htmlEscape;
  const parts: string[] = [];
  if (d.answer) {
    const fix = remediationLines(d.answer.remediation);
    parts.push(
      `<h2 class="fail">What broke: ${e(d.answer.id)} — ${e(d.answer.title)}</h2><p>${e(d.answer.cluster)}${
        d.answer.peer ? ` peer ${e(d.answer.peer)}` : ""
      }: ${e(d.answer.summary)} (was ${e(d.answer.from ?? "absent")})</p>${
        fix.length ? `<pre>${e(fix.join("\n"))}</pre>` : ""
      }`,
    );
  } else parts.push(`<p>${d.exitCode === 0 ? "Nothing that matters changed." : "Nothing newly fails."}</p>`);
  if (d.transitions.length) {
    parts.push(
      `<h2>Check results</h2><table><tr><th>check</th><th>before</th><th>after</th><th>where</th><th>summary</th></tr>${
        d.transitions.map((t) =>
          `<tr${t.kind === "newly-failing" ? ' class="fail"' : ""}><td>${e(t.id)}</td><td>${
            e(t.from ?? "—")
          }</td><td>${e(t.to ?? "—")}</td><td>${e(`${t.cluster}${t.peer ? ` ${t.peer}` : ""}`)}</td><td>${
            e(t.summary)
          }${t.downstreamOf ? ` <em>(downstream of ${e(t.downstreamOf)})</em>` : ""}</td></tr>`
        ).join("")
      }</table>`,
    );
  }
  if (d.objects.length) {
    parts.push(
      `<h2>Objects</h2><table><tr><th>cluster</th><th>object</th><th>change</th><th>field</th><th>before</th><th>after</th></tr>${
        d.objects.flatMap((o) => {
          const obj = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
          const b = o.answerReads ? (s: string) => `<strong>${s}</strong>` : (s: string) => s;
          if (o.fields.length === 0) {
            return [
              `<tr><td>${e(o.cluster)}</td><td>${b(e(obj))}</td><td>${
                e(o.change)
              }</td><td></td><td></td><td></td></tr>`,
            ];
          }
          return o.fields.map((f) =>
            `<tr><td>${e(o.cluster)}</td><td>${b(e(obj))}</td><td>${e(o.change)}</td><td>${
              e(f.label ? `${f.label} (${f.path})` : f.path)
            }</td><td>${e(f.before ?? "—")}</td><td>${e(f.after ?? "—")}</td></tr>`
          );
        }).join("")
      }</table>`,
    );
  }
  return parts.join("\n");
}
