import assert from "node:assert/strict";
import { type FakeCluster, startFakeCluster } from "../../fakekube/mod.ts";
import { KINDS } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import { MAX_SOCKETS } from "../http.ts";
import { openKubeClient } from "./client.ts";
import { createLiveSource, openLiveCluster } from "./source.ts";

/** A TCP proxy on 127.0.0.1 in front of `port` that counts the connections it accepts. */
interface CountingProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Closes every proxied connection (as a server does with idle keep-alive connections). */
  dropAll(): void;
  close(): Promise<void>;
}

function startProxy(port: number): CountingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const pipes: Promise<unknown>[] = [];
  let accepted = 0;
  const loop = (async () => {
    for await (const down of listener) {
      accepted++;
      const up = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.add(down).add(up);
      pipes.push(Promise.allSettled([down.readable.pipeTo(up.writable), up.readable.pipeTo(down.writable)]));
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    get accepted(): number {
      return accepted;
    },
    dropAll(): void {
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed by the pipe
        }
      }
      conns.clear();
    },
    async close(): Promise<void> {
      listener.close();
      await loop;
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed by the pipe
        }
      }
      await Promise.allSettled(pipes);
    },
  };
}

function configmaps(n: number): K8sObject[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace: "default", creationTimestamp: "2025-01-01T00:00:00Z" },
    data: { i: String(i) },
  }));
}

const pod: K8sObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "liqo", creationTimestamp: "2025-01-01T00:00:00Z" },
  spec: { containers: [{ name: "c" }] },
  status: { phase: "Running" },
};

async function withProxiedCluster(
  objects: K8sObject[],
  fn: (kubeconfigYaml: string, proxy: CountingProxy, fake: FakeCluster) => Promise<void>,
  logs: Record<string, string> = {},
): Promise<void> {
  const fake = await startFakeCluster({ name: "rome", objects, wireguard: {}, logs });
  const fakePort = Number(new URL(fake.url).port);
  const proxy = startProxy(fakePort);
  try {
    const yaml = fake.kubeconfigYaml().replace(fake.url, `https://127.0.0.1:${proxy.port}`);
    assert.ok(yaml.includes(`127.0.0.1:${proxy.port}`), yaml);
    await fn(yaml, proxy, fake);
  } finally {
    await proxy.close();
    await fake.close();
  }
}

Deno.test("client: many sequential lists over one source share one keep-alive connection", async () => {
  await withProxiedCluster(configmaps(1200), async (kubeconfigYaml, proxy, fake) => {
    const source = await createLiveSource({ kubeconfigYaml });
    try {
      await source.probeReachable();
      for (let i = 0; i < 10; i++) {
        for (const id of ["configmaps", "pods", "secrets", "nodes", "namespaces", "services"] as const) {
          const out = await source.list(KINDS[id]);
          assert.ok(out.ok, JSON.stringify(out).slice(0, 300));
        }
      }
      const disco = await source.discovery([{ group: "networking.liqo.io", version: "v1beta1" }]);
      assert.ok(disco.ok);
      // 1 probe + 10 × (3 configmap pages + 5 lists) + 1 discovery.
      assert.equal(fake.requests.length, 82);
      assert.equal(
        proxy.accepted,
        1,
        `${proxy.accepted} TCP connections for ${fake.requests.length} requests`,
      );
    } finally {
      await source.close();
    }
  });
});

Deno.test("client: parallel lists open at most MAX_SOCKETS connections, then reuse them", async () => {
  await withProxiedCluster(configmaps(10), async (kubeconfigYaml, proxy, fake) => {
    const source = await createLiveSource({ kubeconfigYaml });
    try {
      const kinds = Object.values(KINDS);
      for (let round = 0; round < 3; round++) {
        const outs = await Promise.all(kinds.map((k) => source.list(k)));
        assert.equal(outs.length, kinds.length);
      }
      assert.ok(fake.requests.length >= 3 * kinds.length);
      assert.ok(kinds.length > MAX_SOCKETS);
      assert.ok(
        proxy.accepted <= MAX_SOCKETS,
        `${proxy.accepted} TCP connections for ${fake.requests.length} requests (bound ${MAX_SOCKETS})`,
      );
    } finally {
      await source.close();
    }
  });
});

Deno.test("client: collect's source and reader share one kubeconfig load and one connection", async () => {
  await withProxiedCluster(
    [pod],
    async (kubeconfigYaml, proxy, fake) => {
      const { source, reader, client } = await openLiveCluster({ kubeconfigYaml });
      try {
        assert.equal(client.endpoint, source.endpoint);
        await source.probeReachable();
        const version = await reader.version();
        assert.ok(version.ok && JSON.parse(version.text).gitVersion, JSON.stringify(version));
        const pods = await source.list(KINDS.pods);
        assert.ok(pods.ok);
        const log = await reader.logs("liqo", "p", "c", { tailLines: 10 });
        assert.ok(log.ok, JSON.stringify(log));
        assert.match(log.text, /hello from c/);
        const missing = await reader.logs("liqo", "nope", "c");
        assert.ok(!missing.ok && missing.reason === "missing", JSON.stringify(missing));
        assert.equal(fake.requests.length, 5);
        assert.equal(proxy.accepted, 1);
      } finally {
        await source.close();
      }
      // Closing the source closed the shared client.
      assert.equal(client.closed, true);
      const after = await reader.version();
      assert.ok(!after.ok && /closed/.test(after.message), JSON.stringify(after));
    },
    { "liqo/p/c": "hello from c\n" },
  );
});

Deno.test("client: connections the server dropped while idle are replaced, requests still succeed", async () => {
  await withProxiedCluster([pod], async (kubeconfigYaml, proxy) => {
    const source = await createLiveSource({ kubeconfigYaml });
    try {
      for (let i = 0; i < 3; i++) {
        const out = await source.list(KINDS.pods);
        assert.ok(out.ok, JSON.stringify(out));
        proxy.dropAll();
        await new Promise((r) => setTimeout(r, i === 0 ? 0 : 50));
      }
      assert.ok(proxy.accepted >= 2 && proxy.accepted <= 4, String(proxy.accepted));
    } finally {
      await source.close();
    }
  });
});

Deno.test("client: close is idempotent and a closed client refuses requests", async () => {
  await withProxiedCluster([], async (kubeconfigYaml) => {
    const client = await openKubeClient({ kubeconfigYaml });
    await client.probeReachable();
    await client.close();
    await client.close();
    await assert.rejects(client.getJson("/version"), /closed/);
    const out = client.failure(new Error("boom"), "listing pods");
    assert.deepEqual(out, { ok: false, reason: "error", message: "listing pods: boom" });
  });
});
