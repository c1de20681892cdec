/**
 * The fake server's router: writes (any method but GET/HEAD) to writes.ts, info and discovery,
 * then the read routes of /api/v1/… and /apis/<group>/<version>/…; 404 for anything else.
 */
import { notFoundResource } from "../status.ts";
import { routeWrite } from "../writes.ts";
import { groupDocument, groupVersions, resourceList, routeInfo } from "./discovery.ts";
import type { Route } from "./faults.ts";
import { routeRead } from "./read.ts";
import type { ServerState } from "./state.ts";

/** The router of one fake cluster. */
export function router(s: ServerState): Route {
  return (req, url) => {
    const segs = url.pathname.split("/").filter((x) => x !== "").map(decodeURIComponent);
    if (req.method !== "GET" && req.method !== "HEAD") return routeWrite(s.writes, req, url, segs);
    const info = routeInfo(s, segs.join("/"));
    if (info) return info;
    if (segs[0] === "api") {
      if (segs[1] !== "v1") return notFoundResource();
      if (segs.length === 2) return resourceList(s.resources, "", "v1");
      return routeRead(s, req, url, "", "v1", segs.slice(2));
    }
    if (segs[0] === "apis" && segs.length >= 2) {
      const vs = groupVersions(s.resources).get(segs[1]);
      if (!vs) return notFoundResource();
      if (segs.length === 2) return groupDocument(segs[1], vs);
      if (!vs.includes(segs[2])) return notFoundResource();
      if (segs.length === 3) return resourceList(s.resources, segs[1], segs[2]);
      return routeRead(s, req, url, segs[1], segs[2], segs.slice(3));
    }
    return notFoundResource();
  };
}
