/**
 * What the pod subresource routes (exec, log) share: finding the pod and resolving the container
 * a request names, with the kube-apiserver's 400s for a wrong or missing container.
 */
import { field, type K8sObject } from "../object.ts";
import type { Resource } from "../resources.ts";
import { statusResponse } from "../status.ts";

/** The served pod `ns/name`, if any. */
export function findPod(
  resources: ReadonlyMap<string, Resource>,
  ns: string,
  name: string,
): K8sObject | undefined {
  return resources.get("/v1/pods")?.objects.find((p) =>
    p.metadata.namespace === ns && p.metadata.name === name
  );
}

/** The 404 of a pod that is not served. */
export function podNotFound(name: string): Response {
  return statusResponse(404, "NotFound", `pods "${name}" not found`, { name, kind: "pods" });
}

/**
 * The container a request addresses: the one named (checked against the pod's), else the pod's
 * only container ("" when the pod lists none); a 400 Response when it cannot be resolved.
 */
export function containerFor(pod: K8sObject, requested: string | null): string | Response {
  const containers = field(pod.spec, "containers");
  const names: string[] = Array.isArray(containers) ? containers.map((c) => String(field(c, "name"))) : [];
  if (requested) {
    if (names.length > 0 && !names.includes(requested)) {
      return statusResponse(
        400,
        "BadRequest",
        `container ${requested} is not valid for pod ${pod.metadata.name}`,
      );
    }
    return requested;
  }
  if (names.length === 1) return names[0];
  if (names.length === 0) return "";
  return statusResponse(
    400,
    "BadRequest",
    `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(" ")}]`,
  );
}
