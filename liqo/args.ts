/**
 * Container command-line flags (`--name=value` / `--name value`) of Liqo's workloads: the gateway's
 * and the controller-manager's settings live there, not in CRs.
 */
import type { Inventory } from "../kube/inventory.ts";
import { controllerManager } from "./lookups.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Controller-manager flag value (`--name=value`), or null. */
export function controllerManagerFlag(inv: Inventory, name: string): string | null {
  const cm = controllerManager(inv);
  if (!cm) return null;
  for (const c of (cm.spec?.template?.spec?.containers ?? []) as Any[]) {
    for (const a of [...(c?.command ?? []), ...(c?.args ?? [])] as string[]) {
      if (typeof a === "string" && a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    }
  }
  return null;
}

/** `--key=value` arguments of a container, as a map. */
// deno-lint-ignore no-explicit-any
export function containerArgs(podSpec: any, container: string): Map<string, string> {
  const out = new Map<string, string>();
  // deno-lint-ignore no-explicit-any
  const c = (podSpec?.containers as any[] | undefined)?.find((x) => x?.name === container);
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
export function pingDisabled(deploymentOrPodSpec: unknown): boolean {
  return containerArgs(deploymentOrPodSpec, "gateway").get("ping-enabled") === "false";
}
