/**
 * The two questions that persist nothing, asked by preflight's passive checks (through the probe
 * hub) and by a probe run's pre-flight (through active/fleet/): a SelfSubjectAccessReview per
 * permission, and a create sent with `dryRun=All` — admission runs, nothing is stored. The dry run
 * is one by construction: {@link dryRunCreate} has no parameter that could drop the query, so a
 * module that holds only this one cannot write (kube/live/write.ts is the writer).
 */
import { z } from "zod";
import { KINDS, listPath } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import type { KubeClient } from "./client.ts";
import { outcomeOf, refusal, send, type WriteOutcome } from "./answer.ts";

/** One question of a SelfSubjectAccessReview (`spec.resourceAttributes`). */
export interface AccessAttributes {
  verb: string;
  resource: string;
  /** API group ("" or absent: core). */
  group?: string;
  subresource?: string;
  /** Absent: cluster-wide (or cluster-scoped resources). */
  namespace?: string;
  name?: string;
}

/** The server's answer to one {@link AccessAttributes}. */
export interface AccessVerdict extends AccessAttributes {
  allowed: boolean;
  /** The authorizer's reason (often empty), or why the review itself failed. */
  reason: string;
  /**
   * The review itself was refused or unreadable (a 403 on selfsubjectaccessreviews, a 5xx): `allowed`
   * is then false without the authorizer having said no.
   */
  reviewFailed?: boolean;
}

/** The SelfSubjectAccessReview endpoint. */
export const SSAR_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

const ReviewSchema = z.object({
  status: z.object({
    allowed: z.boolean().optional(),
    denied: z.boolean().optional(),
    reason: z.string().optional(),
    evaluationError: z.string().optional(),
  }).optional(),
});

/** The path of an object's collection (`/api/v1/namespaces/<ns>/pods`; namespaces: `/api/v1/namespaces`). */
export function collectionPath(obj: K8sObject): string {
  const apiVersion = obj.apiVersion ?? "v1";
  const kind = obj.kind ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const known = Object.values(KINDS).find((k) => k.group === group && k.kind === kind);
  const spec = {
    group,
    version,
    plural: known?.plural ?? `${kind.toLowerCase()}s`,
    kind,
    namespaced: known?.namespaced ?? obj.metadata.namespace !== undefined,
  };
  return listPath(spec, obj.metadata.namespace);
}

/** Asks and answers access questions and dry runs on one cluster; nothing it sends is stored. */
export interface AccessClient {
  /** One SelfSubjectAccessReview per attribute set, all in parallel, answers in the same order. */
  review(attrs: readonly AccessAttributes[], opts?: { signal?: AbortSignal }): Promise<AccessVerdict[]>;
  /** POSTs `obj` to its collection with `?dryRun=All`: the server admits or refuses it, stores nothing. */
  dryRunCreate(obj: K8sObject, opts?: { signal?: AbortSignal }): Promise<WriteOutcome>;
}

/** The {@link AccessClient} of a cluster client. */
export function accessClient(client: KubeClient): AccessClient {
  const server = client.endpoint.server;

  async function reviewOne(a: AccessAttributes, signal?: AbortSignal): Promise<AccessVerdict> {
    const resourceAttributes: Record<string, string> = { verb: a.verb, resource: a.resource };
    if (a.group) resourceAttributes.group = a.group;
    if (a.subresource) resourceAttributes.subresource = a.subresource;
    if (a.namespace) resourceAttributes.namespace = a.namespace;
    if (a.name) resourceAttributes.name = a.name;
    const body = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes },
    };
    const res = await send(client, "POST", SSAR_PATH, body, signal);
    if (res.status < 200 || res.status >= 300) {
      return {
        ...a,
        allowed: false,
        reviewFailed: true,
        reason: `the access review itself failed: ${refusal(res.status, res.body).message}`,
      };
    }
    let review: z.infer<typeof ReviewSchema>;
    try {
      review = ReviewSchema.parse(JSON.parse(res.body));
    } catch {
      return {
        ...a,
        allowed: false,
        reviewFailed: true,
        reason: `unreadable access review answer from ${server}`,
      };
    }
    const st = review.status ?? {};
    const reason = [st.reason, st.evaluationError].filter((s): s is string => !!s).join("; ");
    return { ...a, allowed: st.allowed === true && st.denied !== true, reason };
  }

  return {
    review: (attrs, opts = {}) => Promise.all(attrs.map((a) => reviewOne(a, opts.signal))),
    async dryRunCreate(obj, opts = {}) {
      const path = collectionPath(obj);
      const url = `${path}${path.includes("?") ? "&" : "?"}dryRun=All`;
      return outcomeOf(await send(client, "POST", url, obj, opts.signal), server);
    },
  };
}
