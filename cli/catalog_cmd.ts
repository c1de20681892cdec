/** `flyingfish checks` and `flyingfish explain <ID>`: the catalog as data and as prose. */
import { CATALOG, dependentsOf, findCheck } from "../checks/catalog.ts";
import { resolveCheckId, unknownIdMessage } from "../checks/ids.ts";
import { LAYER_TITLES } from "../checks/types.ts";

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
}

/** The catalog as data. */
export function catalogEntries(): CatalogEntry[] {
  return CATALOG.map((c) => ({
    id: c.id,
    title: c.title,
    layer: c.layer,
    scope: c.scope,
    needsRemoteKubeconfig: c.scope === "dual",
    perPeer: c.perPeer,
    needs: [...c.needs],
    blocks: dependentsOf(c.id),
    reads: [...c.reads, ...(c.optionalReads ?? [])],
  }));
}

/** Prints the catalog as a table or JSON. */
export function printCatalog(format: "text" | "json"): void {
  const entries = catalogEntries();
  if (format === "json") {
    console.log(JSON.stringify({ checks: entries }, null, 2));
    return;
  }
  let layer = "";
  for (const e of entries) {
    if (e.layer !== layer) {
      layer = e.layer;
      console.log(`\n ${LAYER_TITLES[e.layer as keyof typeof LAYER_TITLES]}`);
    }
    const tags = [e.perPeer ? "per peer" : "cluster", e.scope === "dual" ? "needs --remote-kubeconfig" : ""]
      .filter(Boolean).join(", ");
    console.log(`  ${e.id.padEnd(9)}${e.title}  (${tags})`);
  }
}

/**
 * Prints the explanation of one check (the ID in any case); returns the exit code: 3 for an unknown
 * ID, with "did you mean" for a near one (`TUN02` → TUN-02).
 */
export function explain(id: string): number {
  const match = resolveCheckId(id, CATALOG);
  if (!match.ok) {
    console.error(`flyingfish: ${unknownIdMessage(match)}`);
    return 3;
  }
  console.log(explanation(match.id));
  return 0;
}

/** The explanation of one check as `flyingfish explain` prints it; null for an unknown ID. */
export function explanation(id: string): string | null {
  const c = findCheck(id);
  if (!c) return null;
  const blocks = dependentsOf(c.id);
  const lines = [
    `${c.id} — ${c.title}`,
    `layer: ${LAYER_TITLES[c.layer]} · ${c.perPeer ? "runs once per peer" : "runs once per cluster"} · ${
      c.scope === "dual"
        ? "needs --remote-kubeconfig (both ends of the peering)"
        : "works with one kubeconfig"
    }`,
    "",
    "Reads",
    indent(c.explain.reads),
    `  (inventory kinds: ${[...c.reads, ...(c.optionalReads ?? [])].join(", ") || "none"})`,
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
  ];
  return lines.join("\n");
}

function indent(s: string): string {
  return s.split("\n").map((l) => `  ${l}`).join("\n");
}
