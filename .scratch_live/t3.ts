import { startFakeCluster } from "../tests/fakekube/server.ts";
import { createLiveSource } from "../kube/live.ts";
import { KINDS } from "../kube/kinds.ts";
const objects = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "liqo" } },
  { apiVersion: "v1", kind: "Pod", metadata: { name: "gw", namespace: "liqo" }, spec: { containers: [{ name: "gateway" }, {name: "wireguard"}] }, status: { phase: "Running" } },
  { apiVersion: "v1", kind: "Secret", metadata: { name: "k", namespace: "liqo", labels: { "liqo.io/remote-cluster-id": "x" } }, data: { privateKey: "cHJpdg==", publicKey: "cHVi" } },
];
const fc = await startFakeCluster({ name: "rome", objects: objects as any, wireguard: { "liqo/gw": { interfaces: [{ name: "liqo-tunnel", privateKey: "aaa", publicKey: "bbb", listenPort: 51840, peers: [] }] } } });
const dir = await Deno.makeTempDir();
await Deno.writeTextFile(`${dir}/kc`, fc.kubeconfigYaml());
const src = await createLiveSource({ kubeconfig: `${dir}/kc`, requestTimeoutMs: 5000 });
await src.probeReachable();
console.log(JSON.stringify(await src.list(KINDS.secrets)));
console.log(JSON.stringify(await src.discovery([{ group: "networking.liqo.io", version: "v1beta1" }])));
console.log(await src.exec("liqo", "gw", "wireguard", ["wg", "show", "all", "dump"]));
console.log(await src.exec("liqo", "gw", "wireguard", ["false"]));
console.log(await src.exec("liqo", "nope", "wireguard", ["wg"]));
console.log(fc.requests);
await src.close(); await fc.close();
