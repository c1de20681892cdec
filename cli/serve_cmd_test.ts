import assert from "node:assert/strict";
import { defaultListen, IN_POD_LISTEN, LOCAL_LISTEN } from "./serve_cmd.ts";

Deno.test("serve listens on loopback by default, on every interface only inside a pod", async () => {
  const none = (_: string) => undefined;
  assert.equal(await defaultListen(none), LOCAL_LISTEN);
  assert.equal(LOCAL_LISTEN, "127.0.0.1:9464", "a laptop or bastion never publishes the report to the LAN");
  const pod = (n: string) => ({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" })[n];
  assert.equal(await defaultListen(pod), IN_POD_LISTEN);
  assert.equal(IN_POD_LISTEN, ":9464");
  // Half the variables is not a pod (kube/incluster.ts reads both).
  assert.equal(
    await defaultListen((n) => n === "KUBERNETES_SERVICE_HOST" ? "10.96.0.1" : undefined),
    LOCAL_LISTEN,
  );
});
