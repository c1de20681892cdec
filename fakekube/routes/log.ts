/**
 * GET …/pods/<name>/log: a container's log from the scenario (`logs`), else three generic
 * controller start-up lines; `tailLines` keeps the last lines.
 */
import { containerFor, findPod, podNotFound } from "./pods.ts";
import { forbidden, type ServerState } from "./state.ts";

/** Answers a log request for pod `ns/podName`. */
export function routeLog(s: ServerState, url: URL, ns: string, podName: string): Response {
  if (
    !s.permissions.allows({ verb: "get", resource: "pods", subresource: "log", namespace: ns, name: podName })
  ) {
    return forbidden("get", { plural: "pods/log", group: "" }, ns, podName);
  }
  const pod = findPod(s.resources, ns, podName);
  if (!pod) return podNotFound(podName);
  const container = containerFor(pod, url.searchParams.get("container"));
  if (container instanceof Response) return container;
  let text = s.cfg.logs?.[`${ns}/${podName}/${container}`] ??
    [
        `I1130 02:06:31.104233       1 main.go:112] starting ${container}`,
        `I1130 02:06:31.388812       1 manager.go:63] Starting manager`,
        `I1130 02:06:32.007415       1 controller.go:214] Starting workers`,
      ].join("\n") + "\n";
  const tail = url.searchParams.get("tailLines");
  if (tail !== null && /^\d+$/.test(tail)) {
    const ls = text.replace(/\n$/, "").split("\n");
    text = ls.slice(Math.max(0, ls.length - Number(tail))).join("\n") + (ls.length ? "\n" : "");
  }
  return new Response(text, { headers: { "content-type": "text/plain" } });
}
