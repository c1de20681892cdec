/** Helpers shared by several ENV checks. Not a check itself; checks import it, never each other. */
import type { ClusterView } from "../types.ts";
import { liqoNamespaceOf } from "../../liqo/lookups.ts";

/** Namespace Liqo runs in on a cluster view. */
export function liqoNs(view: ClusterView): string | null {
  return view.liqoNamespace ?? liqoNamespaceOf(view.inv);
}
