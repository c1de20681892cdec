/**
 * The verdict of `flyingfish preflight` (the report's `preflight` block) in each format: one
 * verdict line, what it rests on, and the `liqoctl peer` line to run from the consumer.
 */
import type { PreflightBlock, PreflightVerdict } from "../report/model.ts";
import type { Colors } from "./colors.ts";
import { type Hang, wrapCommand, wrapWords } from "./wrap.ts";

/** The mark of each verdict (as the statuses' marks). */
export const VERDICT_MARKS: Readonly<Record<PreflightVerdict, string>> = {
  "can-peer": "✓",
  "can-peer-with-changes": "!",
  "cannot-peer": "✗",
  "could-not-judge": "?",
  "already-peered": "-",
};

/** The verdict as words ("can peer with changes"). */
export function verdictWords(v: PreflightVerdict): string {
  return v.replaceAll("-", " ");
}

const HANG: Hang = { first: "   ", rest: "     " };

/** The text lines of the verdict (after the diagnosis). */
export function preflightTextLines(p: PreflightBlock, c: Colors, width: number): string[] {
  const paint = p.verdict === "can-peer"
    ? c.green
    : p.verdict === "cannot-peer"
    ? c.red
    : p.verdict === "already-peered"
    ? c.dim
    : c.yellow;
  const out = [
    "",
    ...wrapWords(`${VERDICT_MARKS[p.verdict]} verdict: ${p.message}`, width, { first: " ", rest: "   " }).map(
      (l, i) => i === 0 ? paint(l) : l,
    ),
  ];
  for (const b of p.blockers) out.push(...wrapWords(`✗ ${b}`, width, HANG));
  for (const u of p.undecided) out.push(...wrapWords(`? ${u}`, width, HANG));
  for (const ch of p.changes) out.push(...wrapWords(`! ${ch}`, width, HANG));
  if (p.liqoctl) {
    out.push(
      c.dim(
        `   # ${p.verdict === "cannot-peer" ? "once fixed, " : ""}peer from the consumer (${p.consumer}):`,
      ),
    );
    out.push(...wrapCommand(p.liqoctl.line, width, { first: "   ", rest: "       " }).map((l) => c.cyan(l)));
  }
  return out;
}

/** The Markdown section of the verdict. */
export function preflightMarkdown(
  p: PreflightBlock,
  esc: (s: string) => string,
  block: (code: string, lang?: string) => string,
): string[] {
  const out = [
    "## Preflight verdict",
    "",
    `**${VERDICT_MARKS[p.verdict]} ${esc(verdictWords(p.verdict))}**: ${esc(p.message)}`,
    "",
  ];
  for (const b of p.blockers) out.push(`- ✗ ${esc(b)}`);
  for (const u of p.undecided) out.push(`- ? ${esc(u)}`);
  for (const ch of p.changes) out.push(`- ! ${esc(ch)}`);
  if (p.blockers.length || p.undecided.length || p.changes.length) out.push("");
  if (p.liqoctl) {
    out.push(`Peer from the consumer (${esc(p.consumer)}):`, "", block(p.liqoctl.line, "sh"), "");
  }
  return out;
}

/** The HTML section of the verdict (`h` escapes). */
export function preflightHtml(p: PreflightBlock, h: (s: string) => string): string {
  const cls = p.verdict === "can-peer"
    ? "s-pass"
    : p.verdict === "cannot-peer"
    ? "s-fail"
    : p.verdict === "already-peered"
    ? "s-skip"
    : "s-warn";
  const items = [
    ...p.blockers.map((b) => `<li>✗ ${h(b)}</li>`),
    ...p.undecided.map((u) => `<li>? ${h(u)}</li>`),
    ...p.changes.map((ch) => `<li>! ${h(ch)}</li>`),
  ];
  return [
    `<section id="preflight" class="${cls}" data-verdict="${h(p.verdict)}">`,
    `<div class="head"><span class="st">${VERDICT_MARKS[p.verdict]}</span> Preflight verdict: ${
      h(verdictWords(p.verdict))
    } — ${h(p.message)}</div>`,
    items.length ? `<ul>${items.join("")}</ul>` : "",
    p.liqoctl
      ? `<div>Peer from the consumer (${h(p.consumer)}):</div><pre><code>${h(p.liqoctl.line)}</code></pre>`
      : "",
    `</section>`,
  ].join("\n");
}

/** True for a verdict that is no failure: can peer (with changes or not), or already peered. */
export function verdictPasses(p: PreflightBlock): boolean {
  return p.verdict === "can-peer" || p.verdict === "can-peer-with-changes" || p.verdict === "already-peered";
}

/** The JUnit test case of the verdict: failed unless the clusters can peer (with changes or not). */
export function preflightJunit(
  p: PreflightBlock,
  attr: (s: string) => string,
  text: (s: string) => string,
): string[] {
  const ok = verdictPasses(p);
  const out = [
    `  <testsuite name="PREFLIGHT VERDICT" tests="1" failures="${
      ok ? 0 : 1
    }" errors="0" skipped="0" time="0">`,
    `    <testcase classname="PREFLIGHT" name="${attr(`verdict: ${verdictWords(p.verdict)}`)}" time="0">`,
  ];
  if (!ok) {
    out.push(
      `      <failure message="${attr(p.message)}">${
        text([...p.blockers, ...p.undecided].join("\n"))
      }</failure>`,
    );
  }
  out.push(
    `      <system-out>${text(p.liqoctl ? p.liqoctl.line : p.message)}</system-out>`,
    `    </testcase>`,
    `  </testsuite>`,
  );
  return out;
}
