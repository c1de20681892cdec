/** `flyingfish checks` and `flyingfish explain <ID>`: the catalog as data and as prose. */
import { resolveCheckId, unknownIdMessage } from "../checks/ids.ts";
import { type CheckDef, LAYER_TITLES } from "../checks/types.ts";
import { ALL_CHECKS, CATALOG, dependentsOf, findCheck } from "../active/mod.ts";
import { wrapWords } from "../render/wrap.ts";
import { stdoutIsTty, terminalColumns } from "./output.ts";
import { knownBugsOf } from "../checks/known_bugs.ts";

/** One catalog entry as `checks -o json` prints it. */
export interface CatalogEntry {
  id: string;
  title: string;
  layer: string;
  scope: "single" | "dual";
  needsRemoteKubeconfig: boolean;
  perPeer: boolean;
  needs: string[];
  blocks: string[];
  reads: string[];
  /** An active probe (opt-in: `flyingfish probe`, `check --active`); absent for passive checks. */
  active?: true;
  /** Active probes: the modes they run in (`direct`, `offload`). */
  modes?: string[];
}

/** One check of the one catalog as data. */
function entryOf(c: CheckDef): CatalogEntry {
  if (c.active) {
    return {
      id: c.id,
      title: c.title,
      layer: c.layer,
      // Probes need no second kubeconfig: offload mode runs the far half through Liqo.
      scope: "single",
      needsRemoteKubeconfig: false,
      perPeer: true,
      needs: [...c.needs],
      blocks: [],
      reads: [...c.reads],
      active: true,
      modes: [...c.active.modes],
    };
  }
  return {
    id: c.id,
    title: c.title,
    layer: c.layer,
    scope: c.scope,
    needsRemoteKubeconfig: c.scope === "dual",
    perPeer: c.perPeer,
    needs: [...c.needs],
    blocks: dependentsOf(c.id),
    reads: [...c.reads, ...(c.optionalReads ?? [])],
  };
}

/** The passive checks of the catalog as data. */
export function catalogEntries(): CatalogEntry[] {
  return CATALOG.filter((c) => !c.active).map(entryOf);
}

/**
 * Every check as data: `check`'s catalog (the passive checks, then the active ones, marked
 * `active`), then `preflight`'s (layer preflight).
 */
export function allCatalogEntries(): CatalogEntry[] {
  return ALL_CHECKS.map(entryOf);
}

/** Every ID `explain` knows. */
function knownIds(): { id: string; layer: string }[] {
  return ALL_CHECKS.map((c) => ({ id: c.id, layer: c.layer }));
}

/** Prints the catalog as a table or JSON. */
export function printCatalog(format: "text" | "json"): void {
  const entries = allCatalogEntries();
  if (format === "json") {
    console.log(JSON.stringify({ checks: entries }, null, 2));
    return;
  }
  let layer = "";
  for (const e of entries) {
    if (e.layer !== layer) {
      layer = e.layer;
      console.log(`\n ${LAYER_TITLES[e.layer as keyof typeof LAYER_TITLES]}`);
      if (e.layer === "preflight") {
        console.log(
          "  (run by `flyingfish preflight` before peering; [P]: with --probe, see docs/preflight.md)",
        );
      } else if (e.active) {
        console.log("  (run by `flyingfish probe` or `check --active`: they create pods, see README)");
      }
    }
    const tags = e.layer === "preflight"
      ? e.active
        ? "--probe: creates pods"
        : "both clusters: --kubeconfig the consumer, --remote-kubeconfig the provider"
      : e.active
      ? `active, opt-in; ${e.modes?.join(" or ")} mode`
      : [e.perPeer ? "per peer" : "cluster", e.scope === "dual" ? "needs --remote-kubeconfig" : ""]
        .filter(Boolean).join(", ");
    console.log(`  ${e.id.padEnd(e.active ? 13 : 9)}${e.title}  (${tags})`);
  }
}

/**
 * Prints the explanation of one check (the ID in any case); returns the exit code: 3 for an unknown
 * ID, with "did you mean" for a near one (`TUN02` → TUN-02).
 */
export function explain(id: string): number {
  const match = resolveCheckId(id, knownIds());
  if (!match.ok) {
    console.error(`flyingfish: ${unknownIdMessage(match)}`);
    return 3;
  }
  const text = explanation(match.id)!;
  // On a terminal, wrapped at word boundaries to its width (the terminal would cut words); through a
  // pipe, one line per paragraph, for grep and for the reader's own wrapping.
  console.log(stdoutIsTty() ? wrapExplanation(text, terminalColumns()) : text);
  return 0;
}

/**
 * Wraps each line of an explanation to `width`, continuation lines under the line's own text: after
 * its indentation, and after a `label: ` lead (`  blocked by: `) when one starts it.
 */
export function wrapExplanation(text: string, width: number): string {
  return text.split("\n").flatMap((line) => {
    const indent = /^ */.exec(line)![0];
    const lead = /^ *[a-z][a-z ]{0,12}: +/.exec(line)?.[0] ?? indent;
    const rest = " ".repeat(lead.length <= width / 2 ? lead.length : indent.length);
    return wrapWords(line.slice(indent.length), width, { first: indent, rest });
  }).join("\n");
}

/** The explanation of one check as `flyingfish explain` prints it; null for an unknown ID. */
export function explanation(id: string): string | null {
  const c = findCheck(id);
  if (!c) return null;
  if (c.active) return probeExplanation(c, c.active);
  const blocks = dependentsOf(c.id);
  const bugs = knownBugsOf(c.id);
  const lines = [
    `${c.id} — ${c.title}`,
    c.layer === "preflight"
      ? `layer: ${
        LAYER_TITLES[c.layer]
      } · run by \`flyingfish preflight\`, once for both clusters (--kubeconfig ` +
        "the would-be consumer, --remote-kubeconfig the provider)"
      : `layer: ${LAYER_TITLES[c.layer]} · ${c.perPeer ? "runs once per peer" : "runs once per cluster"} · ${
        c.scope === "dual"
          ? "needs --remote-kubeconfig (both ends of the peering)"
          : "works with one kubeconfig"
      }`,
    "",
    "Reads",
    indent(c.explain.reads),
    `  (inventory kinds: ${[...c.reads, ...(c.optionalReads ?? [])].join(", ") || "none"})`,
    ...(c.hubReads?.length ? [`  (through the probe hub: ${c.hubReads.join(", ")})`] : []),
    "",
    "Decides",
    indent(c.explain.decides),
    "",
    "Fixes",
    indent(c.explain.fixes),
    "",
    "Dependencies",
    `  blocked by: ${
      c.needs.length
        ? c.needs.join(", ") + " (if one of them fails or is unknown, this check is skipped" +
          (c.runsIfUnknown?.length ? `; it still runs when ${c.runsIfUnknown.join(", ")} is unknown)` : ")")
        : "nothing"
    }`,
    `  blocks:     ${blocks.length ? blocks.join(", ") + " (skipped when this check fails)" : "nothing"}`,
    ...(c.inputs?.length
      ? [
        `  inputs:     ${
          c.inputs.join(", ")
        } (when it runs too, e.g. with --active; it never blocks this check)`,
      ]
      : []),
    ...(bugs.length
      ? [
        "",
        "Known Liqo bugs",
        "  (a warning or failure that matches one says so, names the fixed release and puts the upgrade first)",
        ...bugs.flatMap((b) => [
          `  ${b.id}: ${b.title} — Liqo ${b.from} to before ${b.fixedIn}, fixed in ${b.fixedIn}`,
          indent(indent(`signature: ${b.signature}`)),
          ...(b.workaround ? [indent(indent(`workaround: ${b.workaround}`))] : []),
          `    source: ${b.source}`,
        ]),
      ]
      : []),
  ];
  return lines.join("\n");
}

/** The explanation of an active probe: same sections, plus how to run it. */
function probeExplanation(p: CheckDef, active: NonNullable<CheckDef["active"]>): string {
  // preflight's active checks run only under `flyingfish preflight --probe`, in their own namespace.
  const preflight = active.probe === "preflight";
  return [
    `${p.id} — ${p.title}`,
    preflight
      ? `layer: ${
        LAYER_TITLES[p.layer]
      } · active check, opt-in: \`flyingfish preflight --probe\` (both kubeconfigs)`
      : `layer: ${LAYER_TITLES[p.layer]} · active probe, opt-in: \`flyingfish probe ${active.probe}\` or ` +
        `\`flyingfish check --active --probes ${active.probe}\` · ${active.modes.join(" or ")} mode`,
    "",
    "Reads",
    indent(p.explain.reads),
    `  (inventory kinds the fleet is planned from: ${p.reads.join(", ")})`,
    "",
    "Decides",
    indent(p.explain.decides),
    "",
    "Fixes",
    indent(p.explain.fixes),
    "",
    "Dependencies",
    "  blocked by: nothing (a probe tests what the passive checks claim; its missing inputs make it unknown)",
    "  blocks:     nothing",
    "",
    "Permissions",
    preflight
      ? "  writes in flyingfish-preflight-<run id> only, in both clusters: see deploy/preflight-probe-clusterrole.yaml (the pre-flight names what is missing)"
      : "  writes in flyingfish-probe-<run id> only: see deploy/probe-clusterrole.yaml (the pre-flight names what is missing)",
  ].join("\n");
}

function indent(s: string): string {
  return s.split("\n").map((l) => `  ${l}`).join("\n");
}
