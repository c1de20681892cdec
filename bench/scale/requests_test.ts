import assert from "node:assert/strict";
import type { RequestLogEntry } from "../../fakekube/mod.ts";
import { isCollectionPath, replayableGets, requestStats } from "./requests.ts";

const get = (path: string, query = "", upgrade = false): RequestLogEntry => ({
  method: "GET",
  path,
  query,
  upgrade,
  status: upgrade ? 101 : 200,
});

Deno.test("isCollectionPath: lists, not single objects or discovery", () => {
  assert.ok(isCollectionPath("/api/v1/pods"));
  assert.ok(isCollectionPath("/api/v1/namespaces/liqo/pods"));
  assert.ok(isCollectionPath("/apis/networking.liqo.io/v1beta1/connections"));
  assert.ok(isCollectionPath("/apis/apps/v1/namespaces/liqo/deployments"));
  assert.ok(isCollectionPath("/api/v1/namespaces"));
  assert.ok(!isCollectionPath("/api/v1/namespaces/liqo"));
  assert.ok(!isCollectionPath("/api/v1/namespaces/liqo/pods/gw-1"));
  assert.ok(!isCollectionPath("/api/v1/namespaces/liqo/pods/gw-1/log"));
  assert.ok(!isCollectionPath("/apis/networking.liqo.io/v1beta1"));
  assert.ok(!isCollectionPath("/api/v1"));
  assert.ok(!isCollectionPath("/version"));
});

Deno.test("requestStats: lists, pages, exec, other; repeats except pages and exec samples", () => {
  const exec = "/api/v1/namespaces/t/pods/gw/exec";
  const log = [
    get("/version"),
    get("/apis"),
    get("/api/v1/pods", "limit=500"),
    get("/api/v1/pods", "limit=500&continue=abc"),
    get("/api/v1/pods", "limit=500&continue=def"),
    get("/api/v1/namespaces/liqo/pods", "limit=500&labelSelector=a%3Db"),
    get("/api/v1/namespaces/liqo/pods", "limit=500&labelSelector=a%3Db"),
    get(exec, "command=wg", true),
    get(exec, "command=wg", true),
    get("/api/v1/namespaces/t/pods/gw/log", "container=wireguard"),
    { ...get("/api/v1/pods", "limit=500"), method: "POST" },
  ];
  const s = requestStats(log);
  assert.deepEqual(
    { total: s.total, lists: s.lists, pages: s.pages, exec: s.exec, other: s.other, repeated: s.repeated },
    { total: 11, lists: 3, pages: 2, exec: 2, other: 4, repeated: 1 },
  );
  assert.deepEqual(s.repeatedList, ["GET /api/v1/namespaces/liqo/pods?limit=500&labelSelector=a%3Db ×2"]);
  assert.deepEqual(s.pagedLists, [
    "/api/v1/pods: 3 pages",
    "/api/v1/namespaces/liqo/pods?labelSelector=a=b: 2 pages",
  ]);
  assert.deepEqual(replayableGets(log).length, 8, "every GET but the exec upgrades");
});
