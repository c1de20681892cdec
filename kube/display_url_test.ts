import assert from "node:assert/strict";
import { displayUrl } from "./display_url.ts";

Deno.test("displayUrl: userinfo goes, everything else stays byte for byte", () => {
  assert.equal(displayUrl("https://user:pass@host:6443"), "https://host:6443");
  assert.equal(displayUrl("https://user@host:6443/k8s/clusters/c-1"), "https://host:6443/k8s/clusters/c-1");
  assert.equal(displayUrl("https://us%40er:p@ss@10.0.0.1:6443/"), "https://10.0.0.1:6443/");
  assert.equal(displayUrl("http://127.0.0.1:8001"), "http://127.0.0.1:8001");
  assert.equal(displayUrl("https://host/path?x=a@b"), "https://host/path?x=a@b");
  assert.equal(displayUrl("not a url"), "not a url");
});
