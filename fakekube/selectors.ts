/**
 * Label and field selectors as the kube-apiserver parses them, for the subset kubectl and
 * FlyingFish send: labels `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`; fields
 * `=`/`==`/`!=` on metadata.name, metadata.namespace, spec.nodeName, status.phase, and for events
 * type and involvedObject.{kind,name,namespace}. The fake's own parser (not the product's
 * kube/selectors.ts): tests/fakekube/selectors_test.ts checks that both select the same objects.
 */
import { field, type K8sObject } from "./object.ts";

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

/** Splits on commas outside parentheses; drops empty requirements. */
function requirements(sel: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= sel.length; i++) {
    const ch = sel[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (i === sel.length || (ch === "," && depth === 0)) {
      const part = sel.slice(start, i).trim();
      if (part) out.push(part);
      start = i + 1;
    }
  }
  return out;
}

const LABEL_KEY = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
const SET_REQ = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;
const EQ_REQ = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/;
const NOT_EXISTS = /^!\s*(\S+)$/;
const EXISTS = /^(\S+)$/;

function labelKey(key: string, part: string): string {
  if (LABEL_KEY.test(key)) return key;
  throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in "${part}"`);
}

function labelRequirement(part: string): Matcher {
  const label = (o: K8sObject, key: string): string | undefined => o.metadata.labels?.[key];
  let m = SET_REQ.exec(part);
  if (m) {
    const key = labelKey(m[1], part);
    const set = new Set(m[3].split(",").map((v) => v.trim()).filter(Boolean));
    const inSet = (o: K8sObject): boolean => {
      const v = label(o, key);
      return v !== undefined && set.has(v);
    };
    return m[2] === "in" ? inSet : (o) => !inSet(o);
  }
  if ((m = EQ_REQ.exec(part))) {
    const key = labelKey(m[1], part);
    const want = m[3];
    return m[2] === "!=" ? (o) => label(o, key) !== want : (o) => label(o, key) === want;
  }
  if ((m = NOT_EXISTS.exec(part))) {
    const key = labelKey(m[1], part);
    return (o) => label(o, key) === undefined;
  }
  if ((m = EXISTS.exec(part))) {
    const key = labelKey(m[1], part);
    return (o) => label(o, key) !== undefined;
  }
  throw new SelectorError(`unable to parse requirement: "${part}"`);
}

/** Parses a label selector into a predicate over `metadata.labels`. */
export function parseLabelSelector(sel: string): Matcher {
  const reqs = requirements(sel).map(labelRequirement);
  return (o) => reqs.every((r) => r(o));
}

const involved = (o: K8sObject, key: string): string => String(field(o.involvedObject, key) ?? "");

/** The fields a field selector may name, per the kube-apiserver's field label conversions. */
const FIELD_LABELS = new Map<string, (o: K8sObject) => string>([
  ["metadata.name", (o) => o.metadata.name],
  ["metadata.namespace", (o) => o.metadata.namespace ?? ""],
  ["spec.nodeName", (o) => String(field(o.spec, "nodeName") ?? "")],
  ["status.phase", (o) => String(field(o.status, "phase") ?? "")],
  ["type", (o) => String(o.type ?? "")],
  ["involvedObject.kind", (o) => involved(o, "kind")],
  ["involvedObject.name", (o) => involved(o, "name")],
  ["involvedObject.namespace", (o) => involved(o, "namespace")],
]);

/** Parses a field selector into a predicate. */
export function parseFieldSelector(sel: string): Matcher {
  const reqs = requirements(sel).map((part): Matcher => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw new SelectorError(`invalid selector: '${sel}'; can't understand '${part}'`);
    const get = FIELD_LABELS.get(m[1]);
    if (!get) throw new SelectorError(`field label not supported: ${m[1]}`);
    const want = m[3];
    return m[2] === "!=" ? (o) => get(o) !== want : (o) => get(o) === want;
  });
  return (o) => reqs.every((r) => r(o));
}
