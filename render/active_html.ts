/**
 * The HTML of a report's `active` block: each matrix grid as a heat map (a table whose cells are
 * coloured by state, each with a title naming the pair and what failed), the reading rules and the
 * reading, the nodes left out, and the list of created objects with their fate. Its styles travel
 * with it, so a passive report is byte-for-byte what it was.
 */
import {
  type ActiveRunRecord,
  CELL_LEGEND,
  cellState,
  cellText,
  cleanupCommandOf,
  createdSummary,
  type MatrixGrid,
  type Report,
} from "../report/model.ts";

function h(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );
}

const STYLE = `<style>
table.heat{width:auto;border-collapse:separate;border-spacing:3px}table.heat th{font-weight:600;font-size:12px}
table.heat td.cell{min-width:44px;text-align:center;font-weight:700;border-radius:4px;border:none;color:#fff}
td.cell.c-ok{background:var(--pass)}td.cell.c-fail{background:var(--fail)}td.cell.c-flaky{background:var(--warn)}
td.cell.c-unknown{background:var(--unknown)}table.heat th.row{text-align:right}
ul.fate li.removed::marker{color:var(--pass)}ul.fate li.kept::marker,ul.fate li.stuck::marker{color:var(--warn)}
ul.fate li.failed::marker{color:var(--fail)}
</style>`;

/** One grid as a heat map. */
export function heatMap(g: MatrixGrid): string {
  const head = `<tr><th class="row">from \\ to</th>${
    g.cols.map((c) => `<th class="nw">${h(c)}</th>`).join("")
  }</tr>`;
  const rows = g.cells.map((row, i) =>
    `<tr><th class="row nw">${h(g.rows[i])}</th>${
      row.map((cell, j) => {
        const state = cellState(cell);
        const title = `${g.rows[i]} → ${g.cols[j]}: TCP ${cell.tcp}, UDP ${cell.udp}${
          cell.detail ? ` — ${cell.detail}` : ""
        }`;
        return `<td class="cell c-${state}" data-state="${state}" title="${h(title)}">${
          h(cellText(cell))
        }</td>`;
      }).join("")
    }</tr>`
  );
  return `<table class="heat" data-grid="${h(g.title)}">${head}\n${rows.join("\n")}</table>`;
}

/** The `Active probes` section. */
export function activeHtml(report: Report, active: ActiveRunRecord): string[] {
  const out: string[] = [STYLE, `<h2 id="active">Active probes</h2>`];
  out.push(
    `<p class="meta">Run <code>${h(active.runId)}</code> · ${h(active.mode)} mode · peer ${
      h(active.peer)
    } · ` +
      `probes: ${h(active.probes.join(", "))}</p>`,
  );
  const m = active.matrix;
  if (m && m.grids.length) {
    for (const g of m.grids) {
      out.push(
        `<h3>${h(g.title)}${
          g.control
            ? ` <span class="muted">${
              /control/i.test(g.title) ? "" : "(control) "
            }same cluster: its CNI, not Liqo</span>`
            : ""
        }</h3>`,
      );
      out.push(
        g.rows.length && g.cols.length ? heatMap(g) : `<p class="muted">No probe pod on one side.</p>`,
      );
    }
    out.push(`<p class="muted">${h(CELL_LEGEND)}</p>`);
    if (m.rules.length) {
      out.push(`<p><b>Reading rules</b></p><ul>${m.rules.map((r) => `<li>${h(r)}</li>`).join("")}</ul>`);
    }
    if (m.reading.length) {
      out.push(`<p><b>Reading</b></p><ul>${m.reading.map((r) => `<li>${h(r)}</li>`).join("")}</ul>`);
    }
  }
  if (active.excluded.length) {
    out.push(
      `<p><b>Nodes left out</b></p><ul>${
        active.excluded.map((e) => `<li>${h(e.side)} <code>${h(e.node)}</code>: ${h(e.reason)}</li>`).join("")
      }</ul>`,
    );
  }
  const created = createdSummary(active.created);
  out.push(
    `<p><b>Created</b></p><ul>${
      created.length ? created.map((l) => `<li>${h(l)}</li>`).join("") : "<li>nothing</li>"
    }</ul>`,
  );
  const images = Object.entries(active.images);
  if (images.length) {
    out.push(
      `<p class="muted">${
        images.map(([r, ref]) => `image ${h(r)}: <code>${h(ref)}</code>`).join("<br>")
      }</p>`,
    );
  }
  if (active.cleanup.length) {
    out.push(
      `<p><b>Removed</b></p><ul class="fate">${
        active.cleanup.map((c) =>
          `<li class="${c.status}" data-status="${c.status}"><code>${h(c.cluster)}/${
            h(c.namespace)
          }</code>: ` +
          `${h(c.status)}${c.detail ? ` — ${h(c.detail)}` : ""}</li>`
        ).join("")
      }</ul>`,
    );
  }
  if (active.cleanup.some((c) => c.status !== "removed")) {
    const cmd = cleanupCommandOf(active, report.clusters, report.invocation?.kubeconfig ?? null);
    out.push(`<p>Remove what is left with:</p><pre class="cmd">${h(cmd)}</pre>`);
  }
  return out;
}
