import { startFakeCluster } from "../tests/fakekube/server.ts";
const fc = await startFakeCluster({ name: "rome", objects: [{ apiVersion: "v1", kind: "Pod", metadata: { name: "gw", namespace: "liqo" }, spec: { containers: [{ name: "wireguard" }] }, status: { phase: "Running" } }] as any, wireguard: {} });
for (const proto of ["v5.channel.k8s.io,v4.channel.k8s.io", "v5.channel.k8s.io, v4.channel.k8s.io"]) {
const r = await fetch(`${fc.url}/api/v1/namespaces/liqo/pods/gw/exec?command=wg&container=wireguard`, { headers: { authorization: `Bearer ${fc.token}`, upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13", "sec-websocket-protocol": proto }, client: Deno.createHttpClient({ caCerts: [fc.caPem!], http2: false }) });
console.log(proto, r.status, (await r.text()).slice(0, 300));
}
await fc.close();
