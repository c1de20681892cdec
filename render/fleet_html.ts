/**
 * The fleet as one self-contained HTML page: an inline SVG graph — clusters as nodes on a circle,
 * each edge a line coloured by its verdict and linking to its section — then each edge's section
 * opening its data path (the one-engine report's first peering, drawn as in the single report),
 * its finding and its non-passing checks. No script, no external resource.
 */
import { LAYER_TITLES, type ReportResult } from "../report/model.ts";
import type { FleetEdge, FleetReport } from "../report/fleet.ts";
import { firstDataPathSvg, htmlEscape as h, REPORT_CSS, stepsHtml } from "./html.ts";
import { MARKS } from "./text.ts";

const FLEET_CSS = `
svg.fleet{width:100%;max-width:760px;height:auto;display:block;margin:8px auto}
svg.fleet .node circle{fill:var(--card);stroke:var(--fg);stroke-width:1.5}
svg.fleet .node.down circle{stroke:var(--unknown);stroke-dasharray:4 3}
svg.fleet .edge line{stroke:var(--c);stroke-width:4}svg.fleet .edge.half-visible line,
svg.fleet .edge.orphan line{stroke-dasharray:8 5}svg.fleet .edge:hover line{stroke-width:7}
svg.fleet .ghost circle{fill:none;stroke:var(--muted);stroke-dasharray:3 3}
section.edge{border-left:4px solid var(--c);padding:4px 12px;margin:14px 0;background:var(--card);border-radius:4px}
`;

function slug(i: number): string {
  return `edge-${i + 1}`;
}

function graphSvg(report: FleetReport, edges: readonly FleetEdge[]): string {
  const names = report.clusters.map((c) => c.name);
  for (const e of edges) for (const end of e.ends) if (!names.includes(end)) names.push(end);
  const n = names.length, cx = 380, cy = 230, r = n > 1 ? 170 : 0;
  const pos = new Map(names.map((name, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    return [name, { x: Math.round(cx + r * Math.cos(a)), y: Math.round(cy + r * Math.sin(a)) }];
  }));
  const parts = [
    `<svg class="fleet" role="img" viewBox="0 0 760 460" xmlns="http://www.w3.org/2000/svg" aria-label="fleet graph">`,
  ];
  edges.forEach((e, i) => {
    const a = pos.get(e.ends[0])!, b = pos.get(e.ends[1])!;
    parts.push(
      `<a href="#${slug(i)}"><g class="edge ${e.class} s-${e.verdict}" data-edge="${
        h(e.id)
      }" data-verdict="${e.verdict}">` +
        `<title>${
          h(`${e.id} [${e.class}] ${e.verdict}${
            e.firstBroken ? `: ${e.firstBroken.id} ${e.firstBroken.summary}` : ""
          }`)
        }</title>` +
        `<line x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}"/></g></a>`,
    );
  });
  for (const name of names) {
    const p = pos.get(name)!;
    const c = report.clusters.find((x) => x.name === name);
    const cls = !c ? "ghost" : c.error ? "node down" : "node";
    parts.push(
      `<g class="${cls}" data-cluster="${h(name)}"><title>${
        h(c ? c.error ?? `via ${c.context}` : `${name}: not in the fleet`)
      }</title>` +
        `<circle cx="${p.x}" cy="${p.y}" r="26"/>` +
        `<text x="${p.x}" y="${p.y + 44}" text-anchor="middle">${h(name)}</text></g>`,
    );
  }
  parts.push(`</svg>`);
  return parts.join("\n");
}

function resultsTable(rs: readonly ReportResult[]): string {
  const bad = rs.filter((r) => r.status === "fail" || r.status === "warn" || r.status === "unknown");
  if (!bad.length) return `<p class="muted">every check passed or was skipped</p>`;
  return `<table><thead><tr><th>Status</th><th>ID</th><th>Layer</th><th>Cluster</th><th>Result</th></tr></thead><tbody>` +
    bad.map((r) =>
      `<tr class="s-${r.status}" data-status="${r.status}"><td class="st">${
        MARKS[r.status]
      } ${r.status}</td>` +
      `<td class="id">${h(r.id)}</td><td>${h(LAYER_TITLES[r.layer])}</td><td class="nw">${
        h(r.cluster)
      }</td>` +
      `<td>${h(r.summary)}</td></tr>`
    ).join("") + `</tbody></table>`;
}

/** Renders the fleet report as one self-contained HTML page. */
export function renderFleetHtml(report: FleetReport): string {
  const edges = Object.values(report.edges);
  const s = report.summary;
  const body: string[] = [
    `<h1>FlyingFish fleet report</h1>`,
    `<div class="meta">${
      h(report.generatedAt)
    } · ${s.clusters} clusters · ${s.edges} edges · exit code ${report.exitCode}</div>`,
    report.invocation
      ? `<div class="meta">Command: <code class="cmdline">${h(report.invocation.commandLine)}</code></div>`
      : "",
    `<h2>Fleet</h2>`,
    graphSvg(report, edges),
    `<p>${s.byVerdict.pass} pass · ${s.byVerdict.warn} warn · ${s.byVerdict.fail} fail · ${s.byVerdict.unknown} unknown — ` +
    Object.entries(s.byClass).filter(([, n]) => n).map(([k, n]) => `${n} ${h(k)}`).join(", ") + `</p>`,
    `<h2>Clusters</h2><table><thead><tr><th>Cluster</th><th>Context</th><th>Status</th></tr></thead><tbody>`,
    ...report.clusters.map((c) =>
      `<tr class="s-${c.error ? "unknown" : "pass"}"><td class="nw">${h(c.name)}</td><td class="nw">${
        h(c.context ?? c.contexts.join(", "))
      }</td>` +
      `<td>${h(c.error ?? c.chosenBecause ?? "read")}</td></tr>`
    ),
    `</tbody></table>`,
    `<h2>Edges</h2>`,
  ];
  edges.forEach((e, i) => {
    body.push(
      `<section id="${slug(i)}" class="edge s-${e.verdict}" data-edge="${h(e.id)}" data-class="${e.class}">`,
      `<h3><span class="st">${MARKS[e.verdict]}</span> <span class="nw">${h(e.id)}</span> [${
        h(e.class)
      }]</h3>`,
      `<p>${h(e.reason)}</p>`,
    );
    if (e.firstBroken && e.verdict !== "pass") {
      body.push(`<p><b>First broken link:</b> ${h(e.firstBroken.id)} — ${h(e.firstBroken.summary)}</p>`);
    }
    if (e.finding) {
      body.push(
        `<ul>${e.finding.evidence.map((x) => `<li>${h(x)}</li>`).join("")}</ul>`,
        stepsHtml(e.finding.remediation),
      );
    }
    if (e.report) body.push(firstDataPathSvg(e.report, `datapath-${i + 1}`), resultsTable(e.report.results));
    body.push(`</section>`);
  });
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>FlyingFish fleet report</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><style>${REPORT_CSS}${FLEET_CSS}</style></head>` +
    `<body>\n${body.filter(Boolean).join("\n")}\n</body></html>\n`;
}
