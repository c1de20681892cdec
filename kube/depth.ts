/**
 * A bound on how deeply nested an object may be for FlyingFish to process it. A Kubernetes API
 * server accepts JSON nested up to 10 000 levels (in a CR's free-form field, say), while the walks
 * downstream — redaction, `structuredClone`, the IP pseudonymiser, a bundle's replay — recurse once
 * per level and overflow the stack a few thousand levels down. Objects deeper than
 * {@link MAX_OBJECT_DEPTH} are therefore set aside where they enter (a collected list, a bundle's
 * list) and named in one line; nothing real comes close (the deepest Liqo objects nest ~20 levels).
 * The depth is measured iteratively, so measuring never overflows.
 */
import type { K8sObject } from "./source.ts";

/** Nesting levels (objects and arrays) an object may have to be processed. */
export const MAX_OBJECT_DEPTH = 1_000;

/**
 * True when `value` nests objects/arrays more than `limit` levels deep (a scalar is 0 levels, `{}`
 * one). Iterative, and stops at the first path that crosses the limit.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_OBJECT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > limit) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      if (x !== null && typeof x === "object") stack.push([x, d + 1]);
    }
  }
  return false;
}

/** An object left out because it nests too deeply: what names it, and why. */
export interface SkippedObject {
  kind: string;
  namespace?: string;
  name: string;
  reason: string;
}

/** `Kind namespace/name` (or `Kind name` for a cluster-scoped object). */
export function objectLabel(o: { kind?: string; namespace?: string; name: string }): string {
  return `${o.kind ?? "object"} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
}

/** The reason recorded for an object deeper than {@link MAX_OBJECT_DEPTH}. */
export const TOO_DEEP_REASON = `nested more than ${MAX_OBJECT_DEPTH} levels deep: not processed`;

/** Splits a list into the objects that can be processed and those nested too deeply (named). */
export function setAsideTooDeep(
  items: readonly K8sObject[],
  kind: string,
): { kept: K8sObject[]; skipped: SkippedObject[] } {
  const kept: K8sObject[] = [];
  const skipped: SkippedObject[] = [];
  for (const o of items) {
    if (!nestedDeeperThan(o)) {
      kept.push(o);
      continue;
    }
    const meta = (o.metadata ?? {}) as { name?: unknown; namespace?: unknown };
    const namespace = typeof meta.namespace === "string" && meta.namespace !== ""
      ? meta.namespace
      : undefined;
    skipped.push({
      kind: typeof o.kind === "string" ? o.kind : kind,
      ...(namespace ? { namespace } : {}),
      name: typeof meta.name === "string" ? meta.name : "",
      reason: TOO_DEEP_REASON,
    });
  }
  return { kept, skipped };
}
