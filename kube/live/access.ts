/**
 * The two questions that persist nothing, asked by preflight's passive checks (through the probe
 * hub) and by a probe run's pre-flight (through active/fleet/): a SelfSubjectAccessReview per
 * permission, and a create sent with `dryRun=All` — admission runs, nothing is stored. The dry run
 * is one by construction: {@link dryRunCreate} has no parameter that could drop the query, so a
 * module that holds only this one cannot write (kube/live/write.ts is the writer).
 */
import { z } from "zod";
import { KINDS, listPath } from "../kinds.ts";
import type { AccessAttributes, AccessClient, AccessVerdict, K8sObject } from "../source.ts";

export type { AccessAttributes, AccessClient, AccessVerdict } from "../source.ts";
import type { KubeClient } from "./client.ts";
import { outcomeOf, refusal, send } from "./answer.ts";

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
