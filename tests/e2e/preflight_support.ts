/**
 * Runs `flyingfish preflight` (the real CLI, over HTTPS) against a scenario of testdata/preflight/:
 * its clusters served by the fake API server, the would-be consumer as `--kubeconfig`, the
 * provider as `--remote-kubeconfig` (the same file when the scenario names one cluster twice).
 */
import { loadScenario, type Scenario, type ServedScenario, serveScenario } from "../../fakekube/mod.ts";
import assert from "node:assert/strict";
import type { Report } from "../../report/model.ts";
import { renderHtml } from "../../render/html.ts";
import { renderMarkdown } from "../../render/markdown.ts";
import { renderText } from "../../render/text.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli } from "./harness.ts";

/** testdata/preflight/: the preflight scenarios (never run by `check`'s matrices). */
export const PREFLIGHT_ROOT = new URL("../../testdata/preflight/", import.meta.url);

/** One preflight run. */
export interface PreflightRun {
  scenario: Scenario;
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  report: any | null;
  /** The servers, closed; their request logs stay readable. */
  served: ServedScenario;
}

/** Serves scenario `name` and runs `flyingfish preflight … [args]` against it (JSON unless args say). */
export async function runPreflight(
  name: string,
  opts: {
    args?: string[];
    output?: string;
    permissions?: string[];
    env?: Record<string, string>;
    root?: URL;
  } = {},
): Promise<PreflightRun> {
  const s = await loadScenario(name, opts.root ?? PREFLIGHT_ROOT);
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const tmp = await Deno.makeTempDir({ prefix: `ff-preflight-${name}-` });
  try {
    const local = `${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(`${tmp}/${local}`, served.kubeconfigYaml(s.run.local));
    const remoteName = s.run.remote ?? s.run.local;
    const remote = `${remoteName}.kubeconfig`;
    if (remote !== local) await Deno.writeTextFile(`${tmp}/${remote}`, served.kubeconfigYaml(remoteName));
    const output = opts.output ?? "json";
    const args = [
      "preflight",
      "--kubeconfig",
      local,
      "--remote-kubeconfig",
      remote,
      "-o",
      output,
      // `run.networkProbes: true`: this host dials too (the --probe API check compares with it).
      ...(s.run.networkProbes ? [] : ["--no-network-probes"]),
      ...s.run.args,
      ...(opts.args ?? []),
    ];
    const r = await runCli(args, {
      permissions: opts.permissions ?? CLI_PERMISSIONS,
      cwd: tmp,
      env: opts.env,
    });
    let report = null;
    if (output === "json") {
      try {
        report = JSON.parse(r.stdout);
      } catch {
        report = null;
      }
    }
    return { scenario: s, ...r, report, served };
  } finally {
    await served.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

/**
 * A preflight report leaves out what speaks of an existing peering — the peering dump, the manual
 * test cheat sheet, the data-path diagram — and names its clusters as consumer and provider.
 */
export function assertPreflightSections(report: Report, name: string): void {
  assert.equal(report.peering, null, `${name}: no peering dump`);
  assert.deepEqual(report.cheatSheet, [], `${name}: no cheat sheet`);
  assert.deepEqual(report.incomplete, [], `${name}: no gap of a section it does not build`);
  const p = report.preflight!;
  const md = renderMarkdown(report);
  assert.ok(
    md.startsWith(`# FlyingFish preflight — ${p.consumer} → ${p.provider}\n`),
    `${name}: ${md.slice(0, 80)}`,
  );
  assert.doesNotMatch(md, /cheat sheet|^## Peering/im, `${name}: Markdown`);
  const html = renderHtml(report);
  assert.doesNotMatch(
    html,
    /cheat sheet|<h2>Peering<\/h2>|<h2>Data path<\/h2>|id="datapath"/i,
    `${name}: HTML`,
  );
  assert.match(html, /<h1>FlyingFish preflight — /);
  const text = renderText(report, { color: false, verbose: true, quiet: false });
  assert.doesNotMatch(text, /CHEAT SHEET|^ PEERING$/m, `${name}: text -v`);
  // The Run table: the would-be consumer and provider, not a local and a remote end.
  const lines = md.split("\n");
  const head = lines.findIndex((l) => l.startsWith("| Cluster | Role | Cluster ID |"));
  const roles = lines.slice(head + 2, head + 4).map((l) => l.split(" | ")[1]);
  if (p.consumer !== p.provider) assert.deepEqual(roles, ["consumer", "provider"], `${name}: roles`);
}
