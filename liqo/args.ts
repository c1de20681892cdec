/**
 * Container command-line flags (`--name=value` / `--name value`) of Liqo's workloads: the gateway's
 * and the controller-manager's settings live there, not in CRs. The one parser of them.
 */
import type { PodSpec } from "./views/meta.ts";

/** `--key=value` (or `--key value`, or a bare `--flag` = "true") arguments of a container, as a map. */
export function containerArgs(podSpec: PodSpec | null | undefined, container: string): Map<string, string> {
  const out = new Map<string, string>();
  const c = podSpec?.containers?.find((x) => x?.name === container);
  const args: unknown[] = [...(c?.command ?? []), ...(c?.args ?? [])];
  for (let i = 0; i < args.length; i++) {
    const a = String(args[i]);
    if (!a.startsWith("--")) continue;
    const eq = a.indexOf("=");
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else if (i + 1 < args.length && !String(args[i + 1]).startsWith("--")) {
      out.set(a.slice(2), String(args[++i]));
    } else out.set(a.slice(2), "true");
  }
  return out;
}

/** True when the gateway container runs with `--ping-enabled=false`. */
export function pingDisabled(podSpec: PodSpec | null | undefined): boolean {
  return containerArgs(podSpec, "gateway").get("ping-enabled") === "false";
}
