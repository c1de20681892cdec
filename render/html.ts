/**
 * The HTML reporter (`-o html`): one self-contained incident report — inline CSS and SVG, no
 * external resources or scripts, light/dark via `prefers-color-scheme`, print-friendly. How it was
 * run (command line, host, timestamp) under the title, the diagnosis (`#diagnosis`), then a
 * data-path diagram per peering (`#datapath`: pod → node → Geneve → gateway → WireGuard → gateway
 * → Geneve → node → pod, each hop with `data-status`, each end labelled with its cluster), all
 * results with evidence and fixes (commands in `<pre>` blocks holding only the command), the
 * peering dump, the cheat sheet and the run metadata (clusters with Kubernetes and Liqo versions).
 */
import { activeHtml } from "./active_html.ts";
import { preflightHtml } from "./preflight.ts";
import {
  type AlsoFailing,
  type Hop as DeclaredHop,
  LAYER_TITLES,
  LAYERS,
  type RemediationStep,
  type ReportResult as CheckResult,
  type ReportSection,
  type Status,
} from "../report/model.ts";
import {
  type DumpTable,
  foreignClusterTable,
  formatDuration,
  type Report,
  reportSubject,
  runTables,
  varyingScopes,
} from "../report/model.ts";
import { MARKS } from "./text.ts";
import { diffHtmlSection } from "./diff_html.ts";
import { hopsOf } from "../report/hops.ts";
import { commentPlacement } from "../report/remediation.ts";
import { isNeedsRemote } from "../report/skips.ts";

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function htmlEscape(s: string): string {
  return s
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const h = htmlEscape;

/** Status of a data-path hop: a check status, or `none` when no check observed it. */
export type HopStatus = Status | "none";

/** One hop of the data-path diagram. */
export interface Hop {
  key: string;
  label: string;
  side: "local" | "remote" | "between";
  status: HopStatus;
  /** The results that decided the status. */
  results: CheckResult[];
}

interface HopSpec {
  key: string;
  label: string;
  side: "local" | "remote" | "between";
  /** The hop checks declare (CheckDef.hops). */
  hop: DeclaredHop;
}

const HOPS: readonly HopSpec[] = [
  { key: "pod-local", label: "pod", side: "local", hop: "local-pod" },
  { key: "node-local", label: "node", side: "local", hop: "node" },
  { key: "geneve-local", label: "Geneve", side: "local", hop: "geneve" },
  { key: "gateway-local", label: "gateway", side: "local", hop: "gateway" },
  { key: "wireguard", label: "WireGuard", side: "between", hop: "wireguard" },
  { key: "gateway-remote", label: "gateway", side: "remote", hop: "gateway" },
  { key: "geneve-remote", label: "Geneve", side: "remote", hop: "geneve" },
  { key: "node-remote", label: "node", side: "remote", hop: "node" },
  { key: "pod-remote", label: "pod", side: "remote", hop: "remote-pod" },
];

const SEVERITY: readonly HopStatus[] = ["fail", "warn", "unknown", "pass", "skip", "none"];

function worst(results: readonly CheckResult[]): HopStatus {
  let best: HopStatus = "none";
  for (const r of results) if (SEVERITY.indexOf(r.status) < SEVERITY.indexOf(best)) best = r.status;
  return best;
}

const BOTH = " ↔ ";

/** The local cluster's name (the first cluster observed when the report names none). */
function localName(report: Report): string {
  return report.clusters.find((c) => c.role === "local")?.name ?? report.results[0]?.cluster ?? "";
}

/** One peering drawn as a data path: from a cluster to its peer (null: no peer, all results). */
export interface PathEnds {
  from: string;
  to: string | null;
}

/**
 * The peerings to draw: one per pair of cluster and peer the results name, the two ends of one
 * peering seen from both clusters (dual mode) drawn once, from the local cluster; the diagnosed
 * peering first. No peer at all: one path over every result.
 */
export function dataPaths(report: Report): PathEnds[] {
  const local = localName(report);
  const paths: PathEnds[] = [];
  const seen = new Set<string>();
  for (const r of report.results) {
    if (r.peer === null) continue;
    const home = r.cluster.split(BOTH)[0];
    // Orient each peering from the local cluster when it is one of its ends.
    const [from, to] = r.peer === local ? [local, home] : [home, r.peer];
    const key = [from, to].sort().join("\u0000");
    if (seen.has(key)) continue;
    seen.add(key);
    paths.push({ from, to });
  }
  const d = report.diagnosis;
  if (d?.peer) {
    const home = d.cluster.split(BOTH)[0];
    const i = paths.findIndex((p) =>
      (p.from === home && p.to === d.peer) || (p.from === d.peer && p.to === home)
    );
    if (i > 0) paths.unshift(...paths.splice(i, 1));
  }
  return paths.length ? paths : [{ from: local, to: null }];
}

/** True when `r` speaks about the peering between `from` and `to` (to null: every result). */
function onPath(r: CheckResult, from: string, to: string | null): boolean {
  if (to === null) return true;
  const [a, b] = r.cluster.split(BOTH);
  if (b !== undefined) {
    const ends = (a === from && b === to) || (a === to && b === from);
    return ends && (r.peer === null || r.peer === to || r.peer === from);
  }
  if (a === from) return r.peer === null || r.peer === to;
  if (a === to) return r.peer === null || r.peer === from;
  return false;
}

/**
 * The hops of the path from `from` (default: the local cluster) to `peer` (null: all results).
 * Local hops take results observed on `from`; remote gateway/Geneve/node hops take results
 * observed on the peer's cluster (dual mode); cross-cluster ("A ↔ B") results count on both
 * sides; results about reaching remote pods (IPAM, reflection) count for the remote pod hop
 * wherever they were observed. Which hops a result speaks for is declared by its check
 * (report/hops.ts). A hop no result speaks for is `none`: not observed.
 */
export function dataPath(report: Report, peer: string | null, from: string = localName(report)): Hop[] {
  const rs = report.results.filter((r) => onPath(r, from, peer));
  return HOPS.map((spec) => {
    const matches = rs.filter((r) => {
      if (!hopsOf(r.id).includes(spec.hop)) return false;
      // The WireGuard tunnel lies between the clusters, and the remote pod is reached through
      // remapping and reflection observed on either side: where they were seen does not matter.
      if (spec.side === "between" || spec.hop === "remote-pod") return true;
      const cross = r.cluster.includes("↔");
      return cross || (spec.side === "local" ? r.cluster === from : r.cluster !== from);
    });
    // A hop some of whose checks were blocked by an earlier failure is not verified: never a ✓.
    const blocked = matches.some((r) => r.status === "skip" && r.blockedBy !== null);
    const status = worst(matches);
    return {
      key: spec.key,
      label: spec.label,
      side: spec.side,
      status: status === "pass" && blocked ? "skip" : status,
      results: matches,
    };
  });
}

/** The mark under a hop; a hop no check observed gets none (its caption says so). */
const HOP_MARK: Readonly<Record<HopStatus, string>> = { ...MARKS, skip: "–", none: "" };

/** The caption under the mark of a hop that was not verified. */
function hopCaption(hop: Hop): string | null {
  if (hop.status === "none") return "not observed";
  if (hop.status !== "skip") return null;
  return hop.results.some((r) => r.blockedBy !== null) ? "not verified" : "not checked";
}

function svgPath(hops: Hop[], id: string, localName: string, remoteName: string): string {
  const w = 108, gap = 14, top = 34, boxH = 46;
  const width = hops.length * w + (hops.length - 1) * gap + 20;
  const parts: string[] = [];
  parts.push(
    `<svg id="${
      h(id)
    }" class="datapath" role="img" viewBox="0 0 ${width} 140" xmlns="http://www.w3.org/2000/svg"` +
      ` aria-label="${h(`data path from ${localName} to ${remoteName}`)}">`,
  );
  parts.push(
    `<text class="side" x="10" y="18">${h(localName)}</text>`,
    `<text class="side" x="${width - 10}" y="18" text-anchor="end">${h(remoteName)}</text>`,
  );
  hops.forEach((hop, i) => {
    const x = 10 + i * (w + gap);
    if (i > 0) {
      const ax = x - gap;
      parts.push(
        `<path class="arrow" d="M${ax + 1} ${top + boxH / 2} h${gap - 4} m-4 -4 l4 4 l-4 4" fill="none"/>`,
      );
    }
    const tip = hop.results.length
      ? hop.results.map((r) =>
        `${MARKS[r.status]} ${r.id} ${r.status} on ${r.cluster}${r.peer ? ` (peer ${r.peer})` : ""}: ${
          r.status === "skip" && r.blockedBy ? `blocked by ${r.blockedBy}` : r.summary
        }`
      )
        .join("\n")
      : hop.side === "remote"
      ? "not observed: no check reads this side (in dual mode, with --remote-kubeconfig, it is)"
      : "not observed by any check";
    const caption = hopCaption(hop);
    parts.push(
      `<g class="hop s-${hop.status}" data-hop="${hop.key}" data-status="${hop.status}">`,
      `<title>${h(tip)}</title>`,
      `<rect x="${x}" y="${top}" width="${w}" height="${boxH}" rx="8"/>`,
      `<text class="label" x="${x + w / 2}" y="${top + 28}" text-anchor="middle">${h(hop.label)}</text>`,
      HOP_MARK[hop.status]
        ? `<text class="mark" x="${x + w / 2}" y="${top + boxH + 26}" text-anchor="middle">${
          h(HOP_MARK[hop.status])
        }</text>`
        : "",
      caption
        ? `<text class="caption" x="${x + w / 2}" y="${top + boxH + (HOP_MARK[hop.status] ? 44 : 22)}" ` +
          `text-anchor="middle">${h(caption)}</text>`
        : "",
      `</g>`,
    );
  });
  parts.push(`</svg>`);
  return parts.filter((p) => p !== "").join("\n");
}

/** Table columns whose values are names that must not wrap (cluster IDs, contexts, versions). */
const NOWRAP = new Set(["Cluster", "Cluster ID", "Peer", "Context", "Name", "Kubernetes", "Liqo", "Role"]);

function table(columns: readonly string[], rows: readonly (readonly string[])[], cls = ""): string {
  const td = (i: number) => NOWRAP.has(columns[i]) ? `<td class="nw">` : `<td>`;
  return `<table${cls ? ` class="${cls}"` : ""}><thead><tr>${
    columns.map((c) => `<th>${h(c)}</th>`).join("")
  }</tr></thead>` +
    `<tbody>${
      rows.map((r) => `<tr>${columns.map((_, i) => `${td(i)}${h(r[i] ?? "")}</td>`).join("")}</tr>`).join(
        "\n",
      )
    }` +
    `</tbody></table>`;
}

/**
 * A fix: comments as text, commands in `<pre class="cmd">` blocks (adjacent commands share one)
 * holding nothing but the commands, so a copied block runs as is.
 */
export function stepsHtml(steps: readonly RemediationStep[]): string {
  if (!steps.length) return "";
  const parts: string[] = [];
  let code: string[] = [];
  const flush = () => {
    if (code.length) parts.push(`<pre class="cmd"><code>${code.map(h).join("\n")}</code></pre>`);
    code = [];
  };
  for (const s of steps) {
    if (s.command !== null && s.comment !== null && commentPlacement(s) === "beside") {
      code.push(`${s.command}   # ${s.comment}`);
      continue;
    }
    if (s.comment !== null) {
      flush();
      parts.push(`<p class="note">${h(s.comment)}</p>`);
    }
    if (s.command !== null) code.push(s.command);
  }
  flush();
  return `<div class="fix"><div class="fix-head">⚑ Fix</div>${parts.join("")}</div>`;
}

function multiline(s: string): string {
  return s.split(/\r?\n/).map(h).join("<br>");
}

/** The other root failures, listed under the diagnosis. */
function alsoFailingHtml(also: readonly AlsoFailing[], showCluster: boolean): string {
  if (!also.length) return "";
  const items = also.map((f) => {
    const where = [showCluster ? f.cluster : null, f.peer !== null ? `peer ${f.peer}` : null].filter((x) => x)
      .join(" · ");
    return `<li><span class="st">${MARKS.fail} ${h(f.id)}</span> [${h(LAYER_TITLES[f.layer])}]` +
      `${where ? ` ${h(where)}` : ""}: ${h(f.summary)}</li>`;
  }).join("");
  return `<div class="also"><b>Also failing</b> (faults the diagnosis does not explain):<ul>${items}</ul></div>`;
}

const CSS = `
:root{--bg:#fff;--fg:#1d2330;--muted:#667085;--line:#d0d5dd;--card:#f6f7f9;--pass:#12805c;--warn:#b25e09;
--fail:#c4320a;--unknown:#7a3fc2;--skip:#98a2b3;--none:#98a2b3;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#11151c;--fg:#e4e7ec;--muted:#98a2b3;--line:#344054;--card:#1a202b;
--pass:#47cd89;--warn:#fdb022;--fail:#f97066;--unknown:#b692f6}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px;background:var(--bg);color:var(--fg);
font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:16px 0 4px}.meta,.muted{color:var(--muted)}
code,pre,td.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 10px;
white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}th,td{text-align:left;vertical-align:top;
padding:4px 8px;border-bottom:1px solid var(--line)}th{font-weight:600}
#diagnosis{border:2px solid var(--fail);border-radius:8px;padding:12px 16px;background:var(--card)}
#diagnosis.ok{border-color:var(--pass)}#diagnosis .head{font-size:16px;font-weight:600}
.fix{color:var(--fg);border-left:3px solid var(--warn);padding-left:8px;margin:6px 0}
.fix-head{font-weight:600}.fix .note{margin:4px 0}.fix pre.cmd{margin:4px 0 8px}
.nw,td.id{white-space:nowrap}code.cmdline{overflow-wrap:anywhere}
.also{margin:8px 0 0}.also ul{margin:4px 0 0;padding-left:20px}
.s-pass{--c:var(--pass)}.s-warn{--c:var(--warn)}.s-fail{--c:var(--fail)}.s-unknown{--c:var(--unknown)}
.s-skip{--c:var(--skip)}.s-none{--c:var(--none)}
.st{color:var(--c);font-weight:700}
.result{border-left:4px solid var(--c);padding:4px 12px;margin:10px 0;background:var(--card);border-radius:4px}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0}.chip{border:1px solid var(--c);color:var(--c);
border-radius:12px;padding:1px 10px;font-size:12px;font-weight:600}
svg.datapath{width:100%;height:auto;margin:4px 0 12px}
svg .hop rect{fill:var(--card);stroke:var(--c);stroke-width:2.5}
svg .hop[data-status="none"] rect,svg .hop[data-status="skip"] rect{stroke-dasharray:5 4}
svg text{fill:var(--fg);font:13px system-ui,sans-serif}svg .mark{fill:var(--c);font-size:20px;font-weight:700}
svg .side{fill:var(--muted);font-size:12px}svg .arrow{stroke:var(--muted);stroke-width:1.5}
svg .caption{fill:var(--muted);font-size:11px}
@media print{body{max-width:none;padding:0;font-size:11px}h2{break-after:avoid}.result,tr,svg{break-inside:avoid}
pre{white-space:pre-wrap;overflow:visible;overflow-wrap:anywhere}}
`;

/** The layer chips and one data-path diagram per peering (`#datapath`, `#datapath-2`, …). */
function dataPathHtml(report: Report): string[] {
  const body: string[] = [`<h2>Data path</h2><div class="chips">`];
  for (const layer of LAYERS) {
    const st = worst(report.results.filter((r) => r.layer === layer));
    // Probes are opt-in, preflight its own command: a run without them has no chip for them, not a grey one.
    if ((layer === "probe" || layer === "preflight") && st === "none") continue;
    body.push(
      `<span class="chip s-${st}" data-layer="${layer}" data-status="${st}">${
        st === "none" ? "·" : MARKS[st]
      } ` +
        `${h(LAYER_TITLES[layer])}</span>`,
    );
  }
  body.push(`</div>`);
  const paths = dataPaths(report);
  const known = new Set(report.clusters.map((c) => c.name));
  paths.forEach((p, i) => {
    if (paths.length > 1 || p.to !== null) {
      // Dual mode: both ends are clusters this run read; otherwise the far end is only a peer.
      const far = p.to === null ? "" : known.has(p.to) ? h(p.to) : `peer ${h(p.to)}`;
      body.push(`<h3><span class="nw">${h(p.from)}</span> → <span class="nw">${far}</span></h3>`);
    }
    body.push(
      svgPath(
        dataPath(report, p.to, p.from),
        i === 0 ? "datapath" : `datapath-${i + 1}`,
        p.from,
        p.to ?? "remote",
      ),
    );
  });
  return body;
}

/** The report's stylesheet, for documents that embed its parts (render/fleet_html.ts). */
export const REPORT_CSS: string = CSS;

/** The first peering's data path of a report as an inline SVG (fleet mode draws one per edge). */
export function firstDataPathSvg(report: Report, id: string): string {
  const p = dataPaths(report)[0];
  return svgPath(dataPath(report, p.to, p.from), id, p.from, p.to ?? "remote");
}

/** Renders the self-contained HTML report. */
export function renderHtml(report: Report): string {
  const s = report.summary;
  const scopes = varyingScopes(report.results);
  const local = localName(report) || "local";
  const subject = reportSubject(report);
  const inv = report.invocation;
  const body: string[] = [];
  body.push(
    `<h1>FlyingFish ${subject.kind} — <span class="nw">${h(subject.about ?? local)}</span></h1>`,
    `<div class="meta">${h(report.generatedAt)} · ${report.mode}` +
      `${
        report.mode === "snapshot"
          ? ` (snapshot taken ${h(report.snapshotTakenAt ?? "at an unknown time")})`
          : ""
      }` +
      `${inv?.host ? ` · from host <span class="nw">${h(inv.host)}</span>` : ""}` +
      ` · ${h(formatDuration(report.durationMs))} · exit code ${report.exitCode}</div>`,
    inv ? `<div class="meta">Command: <code class="cmdline">${h(inv.commandLine)}</code></div>` : "",
  );

  if (report.preflight) body.push(preflightHtml(report.preflight, h));
  // Diagnosis
  if (report.stopped) {
    body.push(
      `<section id="stopped" class="s-unknown"><div class="head"><span class="st">${MARKS.unknown}</span> ` +
        `Run not finished: ${h(report.stopped.message)}</div></section>`,
    );
  }
  const d = report.diagnosis;
  if (d) {
    const where = [scopes.cluster ? d.cluster : null, d.peer !== null ? `peer ${d.peer}` : null].filter((x) =>
      x
    )
      .join(" · ");
    body.push(
      `<section id="diagnosis" class="s-fail" data-check="${h(d.id)}">`,
      `<div class="head"><span class="st">${MARKS.fail} ${h(d.id)}</span> [${h(LAYER_TITLES[d.layer])}]` +
        `${where ? ` ${h(where)}` : ""}: ${h(d.summary)}</div>`,
      stepsHtml(d.remediation),
      alsoFailingHtml(d.alsoFailing ?? [], scopes.cluster),
      `</section>`,
    );
  } else {
    const extra = [
      s.warn ? `${s.warn} warning${s.warn === 1 ? "" : "s"}` : "",
      s.unknown ? `${s.unknown} unknown` : "",
    ]
      .filter((x) => x);
    body.push(
      `<section id="diagnosis" class="ok s-pass"><div class="head"><span class="st">${MARKS.pass}</span> ` +
        `No failure found${extra.length ? ` — ${h(extra.join(", "))}` : ""}</div></section>`,
    );
  }
  body.push(
    `<p>${s.pass} passed · ${s.warn} warning${
      s.warn === 1 ? "" : "s"
    } · ${s.fail} failed · ${s.skip} skipped · ${s.unknown} unknown` +
      ` (${s.total} checks)</p>`,
  );

  if (report.changedSinceHealthy) {
    body.push(
      `<section id="since-healthy"><h2>What changed since it last worked</h2>`,
      `<p>compared with the last healthy round (${h(report.changedSinceHealthy.before.takenAt)})</p>`,
      diffHtmlSection(report.changedSinceHealthy),
      `</section>`,
    );
  }

  // Layer chips + data path; before a peering there is none: the verdict heads the page instead.
  if (!report.preflight) body.push(...dataPathHtml(report));

  // Results
  body.push(`<h2>All checks</h2>`);
  body.push(
    `<table class="results"><thead><tr><th>Status</th><th>ID</th><th>Layer</th><th>Cluster</th><th>Peer</th>` +
      `<th>Result</th></tr></thead><tbody>`,
  );
  const needsRemote = report.results.filter(isNeedsRemote);
  const remoteIds = [...new Set(needsRemote.map((r) => r.id))];
  for (const r of report.results) {
    if (isNeedsRemote(r)) {
      // The checks that only need the other kubeconfig: one row, where the first of them stands.
      if (r !== needsRemote[0]) continue;
      body.push(
        `<tr class="s-skip" data-status="skip" data-skip="needs-remote"><td class="st">${MARKS.skip} skip</td>` +
          `<td class="id">${h(remoteIds.join(", "))}</td><td>—</td><td class="nw">${
            h([...new Set(needsRemote.map((x) => x.cluster))].join(", "))
          }</td>` +
          `<td class="nw">${h([...new Set(needsRemote.map((x) => x.peer ?? "—"))].join(", "))}</td>` +
          `<td>need --remote-kubeconfig (both ends of the peering)</td></tr>`,
      );
      continue;
    }
    body.push(
      `<tr class="s-${r.status}" data-status="${r.status}"><td class="st">${
        MARKS[r.status]
      } ${r.status}</td>` +
        `<td class="id">${h(r.id)}</td><td>${h(LAYER_TITLES[r.layer])}</td><td class="nw">${
          h(r.cluster)
        }</td>` +
        `<td class="nw">${h(r.peer ?? "—")}</td><td>${
          h(r.status === "skip" && r.blockedBy ? `blocked by ${r.blockedBy}` : r.summary)
        }` +
        `</td></tr>`,
    );
  }
  body.push(`</tbody></table>`);
  const notPass = report.results.filter((r) =>
    r.status !== "pass" && !(r.status === "skip" && r.blockedBy) && !isNeedsRemote(r)
  );
  if (notPass.length || needsRemote.length) {
    body.push(`<h2>Findings</h2>`);
    for (const r of notPass) {
      const where = [r.cluster, r.peer !== null ? `peer ${r.peer}` : null].filter((x) => x).join(" · ");
      body.push(
        `<div class="result s-${r.status}" data-check="${h(r.id)}" data-status="${r.status}">`,
        `<h3><span class="st">${MARKS[r.status]}</span> ${h(r.id)} — ${h(r.title)}</h3>`,
        `<div class="muted">${r.status} · ${h(LAYER_TITLES[r.layer])} · ${h(where)}</div>`,
        `<p>${multiline(r.summary)}</p>`,
        r.evidence.length
          ? `<ul>${r.evidence.map((e) => `<li><code>${multiline(e)}</code></li>`).join("")}</ul>`
          : "",
        stepsHtml(r.remediation),
        `</div>`,
      );
    }
    if (needsRemote.length) {
      body.push(
        `<p class="result s-skip" data-skip="needs-remote"><span class="st">${MARKS.skip}</span> ` +
          `${h(remoteIds.join(", "))}: need --remote-kubeconfig (both ends of the peering)</p>`,
      );
    }
  }

  if (report.active) body.push(...activeHtml(report, report.active));

  // Peering dump
  const gaps = (section: ReportSection): string[] =>
    report.incomplete.filter((g) => g.section === section).map((g) =>
      `<p class="incomplete"><strong>Incomplete:</strong> ${h(g.reason)}</p>`
    );
  const peeringGaps = gaps("peering");
  if (report.peering || peeringGaps.length) {
    body.push(`<h2>Peering</h2>`, ...peeringGaps);
    const tables: DumpTable[] = report.peering
      ? [foreignClusterTable(report.peering.foreignClusters), ...report.peering.tables]
      : [];
    for (const t of tables) {
      body.push(
        `<h3>${h(t.title)}</h3>`,
        t.rows.length ? table(t.columns, t.rows) : `<p class="muted">none</p>`,
      );
    }
  }

  // Cheat sheet
  const sheetGaps = gaps("cheat-sheet");
  if (report.cheatSheet.length || sheetGaps.length) {
    body.push(`<h2>Manual test cheat sheet</h2>`, ...sheetGaps);
    for (const e of report.cheatSheet) {
      const where = [e.cluster, e.peer ? `peer ${e.peer}` : null].filter((x) => x).join(" · ");
      body.push(
        `<p><strong>${h(e.title)}:</strong> <code>${h(e.value)}</code>${
          where ? ` <span class="muted">${h(where)}</span>` : ""
        }</p>`,
      );
      if (e.command) body.push(`<pre><code>${h(e.command)}</code></pre>`);
    }
  }

  // Run metadata
  body.push(`<h2>Run</h2>`);
  if (inv) {
    body.push(
      `<p>Command line:</p><pre class="cmd"><code>${h(inv.commandLine)}</code></pre>`,
      `<p>${report.mode === "snapshot" ? "Judged on host" : "Probes ran from host"} ${
        inv.host ? `<code>${h(inv.host)}</code>` : "unknown (no --allow-sys)"
      }.</p>`,
    );
  }
  for (const t of runTables(report)) body.push(table(t.columns, t.rows));
  body.push(
    `<p class="muted">Generated by ${h(report.tool.name)} ${h(report.tool.version)}, report schema ` +
      `v${h(report.schemaVersion)}.</p>`,
  );

  return [
    `<!DOCTYPE html>`,
    `<html lang="en">`,
    `<head>`,
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="color-scheme" content="light dark">`,
    `<title>FlyingFish ${subject.kind} — ${h(subject.about ?? local)}${
      d ? ` — ${h(d.id)} failed` : ""
    }</title>`,
    `<style>${CSS}</style>`,
    `</head>`,
    `<body>`,
    ...body.filter((x) => x !== ""),
    `</body>`,
    `</html>`,
  ].join("\n") + "\n";
}
