/**
 * Reads of served resources: GET of one object, lists with label/field selectors and
 * limit/continue pagination (opaque continue tokens like the kube-apiserver's), and watches
 * (handed to watch.ts); the pod exec and log subresources go to their routes.
 */
import { type Matcher, parseFieldSelector, parseLabelSelector, SelectorError } from "../selectors.ts";
import { resourcePath } from "../paths.ts";
import { stripTypeMeta } from "../resources.ts";
import { json, notFoundResource, statusResponse } from "../status.ts";
import { isWatchRequest } from "../watch.ts";
import { routeExec } from "./exec.ts";
import { routeLog } from "./log.ts";
import { forbidden, type ServerState } from "./state.ts";

function encodeContinue(rv: string, offset: number): string {
  return btoa(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: offset })).replace(/=+$/, "");
}

function decodeContinue(token: string): number | null {
  try {
    const o = JSON.parse(atob(token + "=".repeat((4 - token.length % 4) % 4)));
    return typeof o.start === "number" && o.start >= 0 ? o.start : null;
  } catch {
    return null;
  }
}

/** Answers a GET under /api/v1 or /apis/<group>/<version>: `rest` is the path after the version. */
export function routeRead(
  s: ServerState,
  req: Request,
  url: URL,
  group: string,
  version: string,
  rest: string[],
): Response {
  const path = resourcePath(rest);
  if (!path) return notFoundResource();
  const { ns, plural, name, sub } = path;
  if (sub !== undefined) {
    if (group === "" && plural === "pods" && ns !== undefined && name !== undefined) {
      if (sub === "exec") return routeExec(s, req, url, ns, name);
      if (sub === "log") return routeLog(s, url, ns, name);
    }
    return notFoundResource();
  }
  const r = s.resources.get(`${group}/${version}/${plural}`);
  if (!r) return notFoundResource();
  if (ns !== undefined && !r.namespaced) return notFoundResource();
  if (name !== undefined && ns === undefined && r.namespaced) return notFoundResource();
  const verb = name !== undefined ? "get" : isWatchRequest(url) ? "watch" : "list";
  if (!s.permissions.allows({ verb, resource: r.plural, group: r.group, namespace: ns, name })) {
    return forbidden(verb === "watch" ? "list" : verb, r, ns, name);
  }
  const apiVersion = group === "" ? version : `${group}/${version}`;
  if (name !== undefined) {
    const o = r.objects.find((x) =>
      x.metadata.name === name && (ns === undefined || x.metadata.namespace === ns)
    );
    if (!o) {
      const details: Record<string, unknown> = { name, kind: plural };
      if (group !== "") details.group = group;
      return statusResponse(
        404,
        "NotFound",
        `${group === "" ? plural : `${plural}.${group}`} "${name}" not found`,
        details,
      );
    }
    return json({ ...o, apiVersion, kind: r.kind });
  }
  let matchers: Matcher[];
  try {
    matchers = [];
    const ls = url.searchParams.get("labelSelector");
    if (ls) matchers.push(parseLabelSelector(ls));
    const fs = url.searchParams.get("fieldSelector");
    if (fs) matchers.push(parseFieldSelector(fs));
  } catch (e) {
    if (e instanceof SelectorError) return statusResponse(400, "BadRequest", e.message);
    throw e;
  }
  if (isWatchRequest(url)) return s.watchHub.serve(r, url, ns, matchers, s.closing.signal);
  const all = r.objects.filter((o) =>
    (ns === undefined || o.metadata.namespace === ns) && matchers.every((m) => m(o))
  );
  let start = 0;
  const cont = url.searchParams.get("continue");
  if (cont) {
    const st = decodeContinue(cont);
    if (st === null) {
      return statusResponse(
        400,
        "BadRequest",
        "continue key is not valid: incorrect encoded start resourceVersion",
      );
    }
    start = st;
  }
  const limitRaw = url.searchParams.get("limit");
  const limit = limitRaw && /^\d+$/.test(limitRaw) && Number(limitRaw) > 0 ? Number(limitRaw) : Infinity;
  const page = all.slice(start, start + limit);
  const metadata: Record<string, unknown> = { resourceVersion: s.listRv };
  if (start + page.length < all.length) {
    metadata.continue = encodeContinue(s.listRv, start + page.length);
    metadata.remainingItemCount = all.length - start - page.length;
  }
  return json({ kind: `${r.kind}List`, apiVersion, metadata, items: page.map(stripTypeMeta) });
}
