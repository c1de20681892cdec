/**
 * Label and field selectors as the kube-apiserver parses them (the subset FlyingFish and kubectl
 * use): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`; fields `=`/`==`/`!=` on
 * metadata.name, metadata.namespace, spec.nodeName, status.phase, and for events type,
 * involvedObject.kind, involvedObject.name, involvedObject.namespace.
 */
import type { ListScope } from "./kinds.ts";
import type { K8sObject } from "./source.ts";

/** An object predicate built from a selector. */
export type Matcher = (o: K8sObject) => boolean;

/** A selector the server rejects (answered 400). */
export class SelectorError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x !== "");
}

const KEY = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;

function checkKey(k: string, whole: string): string {
  if (!KEY.test(k)) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${k}" in "${whole}"`);
  }
  return k;
}

/** Parses a label selector into a predicate over `metadata.labels`. */
export function parseLabelSelector(sel: string): Matcher {
  const reqs: Matcher[] = [];
  for (const part of splitTopLevel(sel)) {
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^(\S+)\s+(in|notin)\s*\((.*)\)$/))) {
      const key = checkKey(m[1], part);
      const values = m[3].split(",").map((v) => v.trim()).filter((v) => v !== "");
      const neg = m[2] === "notin";
      reqs.push((o) => {
        const v = o.metadata.labels?.[key];
        return neg ? v === undefined || !values.includes(v) : v !== undefined && values.includes(v);
      });
    } else if ((m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      const key = checkKey(m[1], part);
      const val = m[3];
      const neg = m[2] === "!=";
      reqs.push((o) => {
        const v = o.metadata.labels?.[key];
        return neg ? v !== val : v === val;
      });
    } else if ((m = part.match(/^!\s*(\S+)$/))) {
      const key = checkKey(m[1], part);
      reqs.push((o) => o.metadata.labels?.[key] === undefined);
    } else if ((m = part.match(/^(\S+)$/))) {
      const key = checkKey(m[1], part);
      reqs.push((o) => o.metadata.labels?.[key] !== undefined);
    } else {
      throw new SelectorError(`unable to parse requirement: "${part}"`);
    }
  }
  return (o) => reqs.every((r) => r(o));
}

function involved(o: K8sObject, field: "kind" | "name" | "namespace"): string {
  const io = o.involvedObject as Record<string, unknown> | undefined;
  return String(io?.[field] ?? "");
}

const FIELDS: Record<string, (o: K8sObject) => string> = {
  "metadata.name": (o) => o.metadata.name,
  "metadata.namespace": (o) => o.metadata.namespace ?? "",
  "spec.nodeName": (o) => String(field(o.spec, "nodeName") ?? ""),
  "status.phase": (o) => String(field(o.status, "phase") ?? ""),
  type: (o) => String(o.type ?? ""),
  "involvedObject.kind": (o) => involved(o, "kind"),
  "involvedObject.name": (o) => involved(o, "name"),
  "involvedObject.namespace": (o) => involved(o, "namespace"),
};

/** Parses a field selector into a predicate. */
export function parseFieldSelector(sel: string): Matcher {
  const reqs: Matcher[] = [];
  for (const part of splitTopLevel(sel)) {
    const m = part.match(/^([^=!]+?)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new SelectorError(`invalid selector: '${sel}'; can't understand '${part}'`);
    const get = FIELDS[m[1]];
    if (!get) throw new SelectorError(`field label not supported: ${m[1]}`);
    const val = m[3];
    const neg = m[2] === "!=";
    reqs.push((o) => (get(o) === val) !== neg);
  }
  return (o) => reqs.every((r) => r(o));
}

/** One field of an untyped object part (spec, status), if it is an object. */
export function field(part: unknown, name: string): unknown {
  return part && typeof part === "object" ? (part as Record<string, unknown>)[name] : undefined;
}

/** The objects one scoped list selects (its namespace, label and field selectors), as the server would. */
export function scopeMatcher(scope: ListScope): Matcher {
  const label = scope.labelSelector ? parseLabelSelector(scope.labelSelector) : null;
  const fields = scope.fieldSelector ? parseFieldSelector(scope.fieldSelector) : null;
  return (o) => {
    try {
      return (scope.namespace === undefined || o.metadata?.namespace === scope.namespace) &&
        (label === null || label(o)) && (fields === null || fields(o));
    } catch {
      return false; // an object too malformed to be selected is not selected
    }
  };
}
