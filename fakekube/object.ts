/**
 * The object shape the fake API server stores and serves: a Kubernetes object as JSON, typed here
 * on its own so the fake depends on nothing of the product it tests (structurally it matches the
 * product's `K8sObject`, and tests pass one for the other).
 */

/** A Kubernetes object as served (apiVersion/kind set, spec/status/data untyped on the wire). */
export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    generation?: number;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid?: string;
      controller?: boolean;
    }[];
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  data?: unknown;
  [key: string]: unknown;
}

/** A check status a scenario expects (the report's statuses, as scenario.yaml spells them). */
export type ExpectedStatus = "pass" | "warn" | "fail" | "skip" | "unknown";

/** One field of an untyped object part (spec, status), if it is an object. */
export function field(part: unknown, name: string): unknown {
  return part !== null && typeof part === "object" ? (part as Record<string, unknown>)[name] : undefined;
}
