/**
 * The fake's preflight physics: the LoadBalancer controller (assign, pending), NodePort
 * allocation, ResourceQuota and webhook refusals at the API, and `network.wan` — LoadBalancer,
 * NodePort and port-mapped UDP paths, private node addresses, a one-way firewall, the path MTU and
 * a LoadBalancer that drops UDP.
 */
import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { startFakeCluster } from "./server.ts";
import { allocateNodePorts, policyRefusal } from "./policy.ts";
import { createNetworkHost } from "./probe_exec.ts";
import { lifecycleDefaults } from "./lifecycle.ts";

const SVC = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "gw", namespace: "default" },
  spec: { type: "LoadBalancer", selector: { app: "echo" }, ports: [{ protocol: "UDP", port: 51840 }] },
};

async function post(url: string, token: string, path: string, body: unknown, dryRun = false) {
  const r = await fetch(`${url}${path}${dryRun ? "?dryRun=All" : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

Deno.test("fake LoadBalancer controller: assigns the pool's next address, or stays pending; NodePorts allocated", async () => {
  for (const mode of ["assign", "pending"] as const) {
    const fake = await startFakeCluster({
      name: "c",
      objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }],
      wireguard: {},
      tls: false,
      lifecycle: { loadBalancer: { mode, delayMs: 5 } },
    });
    try {
      const created = await post(fake.url, fake.token, "/api/v1/namespaces/default/services", SVC);
      assert.equal(created.status, 201);
      assert.equal(typeof created.body.spec.ports[0].nodePort, "number");
      await new Promise((r) => setTimeout(r, 60));
      const svc = fake.objects().find((o) => o.kind === "Service" && o.metadata.name === "gw") as K8sObject;
      const ingress = (svc.status as { loadBalancer?: { ingress?: { ip: string }[] } }).loadBalancer?.ingress;
      if (mode === "assign") assert.deepEqual(ingress?.map((i) => i.ip), ["198.51.100.10"]);
      else assert.equal(ingress, undefined);
    } finally {
      await fake.close();
    }
  }
});

Deno.test("fake admission: a pod quota refuses like the API server; NodePorts skip used ones", () => {
  const cfg = lifecycleDefaults({ quota: { pods: 1 } });
  assert.equal(policyRefusal("Pod", "pods", "p", "other", cfg, 0), null);
  assert.match(
    policyRefusal("Pod", "pods", "p", "other", cfg, 1)!.message,
    /exceeded quota: .*limited: pods=1/,
  );
  const withPorts = allocateNodePorts(SVC, [{ ...SVC, spec: { ports: [{ nodePort: 31234 }] } }]);
  assert.equal((withPorts.spec as { ports: { nodePort: number }[] }).ports[0].nodePort, 31235);
});

function node(name: string, internal: string, external?: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: {
      addresses: [
        { type: "InternalIP", address: internal },
        ...(external ? [{ type: "ExternalIP", address: external }] : []),
      ],
    },
  };
}

function pod(name: string, ns: string, ip: string, labels: Record<string, string>, udp: number): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns, labels },
    spec: {
      nodeName: "n1",
      containers: [{ name: "probe", args: ["netexec", "--http-port=8080", `--udp-port=${udp}`] }],
    },
    status: { phase: "Running", podIP: ip },
  };
}

Deno.test("fake WAN: LoadBalancer, NodePort and port-mapped paths; private nodes, firewall, MTU, UDP-dropping LB", () => {
  const svc = {
    ...SVC,
    spec: { ...SVC.spec, ports: [{ protocol: "UDP", port: 51840, targetPort: 51840, nodePort: 31840 }] },
    status: { loadBalancer: { ingress: [{ ip: "198.51.100.10" }] } },
  };
  const b = [
    node("n1", "10.0.0.5", "203.0.113.21"),
    node("n2", "10.0.0.6"),
    svc,
    pod("echo", "default", "10.244.0.9", { app: "echo" }, 51840),
  ];
  const client = pod("client", "default", "10.245.0.9", {}, 8081);
  (client.spec as { nodeName: string }).nodeName = "a1";
  const a = [node("a1", "10.1.0.5"), client];
  const net = (wan: unknown, dropsUdp = false) => {
    const h = createNetworkHost({ wan });
    h.attach("a", () => a);
    h.attach("b", () => b);
    h.configure?.("b", { loadBalancerDropsUdp: dropsUdp });
    return h.network;
  };
  const src = (n: ReturnType<typeof net>) => n.endpointOf("a", a[1])!;
  const dial = (n: ReturnType<typeof net>, addr: string, port: number, size = 100) =>
    n.wanDial(src(n), addr, port, "echo ff-x", size, 40001)?.outcome ?? "not wan";
  const open = net({
    internalRoutable: false,
    portMappings: [{ address: "192.0.2.7", port: 40000, cluster: "b", nodePort: 31840 }],
  });
  assert.equal(dial(open, "198.51.100.10", 51840), "answer");
  assert.equal(dial(open, "203.0.113.21", 31840), "answer");
  assert.equal(dial(open, "10.0.0.6", 31840), "timeout", "a private InternalIP does not route");
  assert.equal(dial(open, "203.0.113.21", 31999), "refused", "nothing on that NodePort: ICMP");
  assert.equal(dial(open, "192.0.2.7", 40000), "answer");
  assert.equal(dial(open, "192.0.2.99", 1), "not wan");
  assert.equal(
    open.wanDial(src(open), "198.51.100.10", 51840, "clientip", 50, 40001)?.answer,
    "10.1.0.5:40001",
  );
  const fw = net({ firewall: [{ from: "a", to: "b", ports: "30000-32767" }] });
  assert.equal(dial(fw, "203.0.113.21", 31840), "timeout");
  assert.equal(dial(fw, "198.51.100.10", 51840), "answer", "only the NodePort range is dropped");
  const small = net({ mtu: 1380 });
  assert.equal(dial(small, "198.51.100.10", 51840, 1380), "answer");
  assert.equal(dial(small, "198.51.100.10", 51840, 1381), "timeout");
  assert.equal(dial(net({}, true), "198.51.100.10", 51840), "timeout", "the LB drops UDP");
  assert.equal(dial(net({}, true), "203.0.113.21", 31840), "answer", "its NodePort still works");
});
