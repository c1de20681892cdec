/**
 * kube/http.ts beyond retries (retry_test.ts): the per-cluster bound on requests in flight (FIFO,
 * one keep-alive agent, connections counted), and `proxy-url` through an HTTP CONNECT proxy and a
 * SOCKS5 proxy in front of the fake API server.
 */
import assert from "node:assert/strict";
import { startFakeCluster } from "../fakekube/mod.ts";
import { processConnectionStats } from "./http.ts";
import { KINDS } from "./kinds.ts";
import { createLimiter } from "./limiter.ts";
import { openKubeClient } from "./live/client.ts";
import { createLiveSource } from "./live/source.ts";

Deno.test("limiter: at most N holders, waiters served first come first served, an abort leaves the queue", async () => {
  const limiter = createLimiter(2);
  const order: number[] = [];
  const a = await limiter.acquire();
  const b = await limiter.acquire();
  const waiting = [3, 4, 5].map((n) => limiter.acquire().then((release) => (order.push(n), release)));
  const ctl = new AbortController();
  const aborted = limiter.acquire(ctl.signal);
  assert.deepEqual(limiter.stats(), { active: 2, queued: 4, peakActive: 2, peakQueued: 4 });
  ctl.abort(new Error("gave up"));
  await assert.rejects(aborted, /gave up/);
  a();
  a(); // twice: no effect
  b();
  const [r3, r4] = await Promise.all(waiting.slice(0, 2));
  assert.deepEqual(order, [3, 4]);
  assert.equal(limiter.stats().active, 2);
  r3();
  const r5 = await waiting[2];
  assert.deepEqual(order, [3, 4, 5]);
  r4();
  r5();
  assert.deepEqual(limiter.stats(), { active: 0, queued: 0, peakActive: 2, peakQueued: 4 });
});

Deno.test("http: at most maxInFlight requests reach the server at once; the rest queue; as many connections", async () => {
  let inFlight = 0;
  let peak = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 20));
    inFlight--;
    return Response.json({ kind: "PodList", metadata: {}, items: [] });
  });
  const before = processConnectionStats();
  const client = await openKubeClient({
    kubeconfigYaml: `current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:${server.addr.port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
`,
    maxInFlight: 3,
  });
  try {
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.get("/api/v1/pods")));
    assert.ok(answers.every((a) => a.status === 200));
    assert.equal(peak, 3, "the server saw at most 3 requests at once");
    const stats = client.stats();
    assert.equal(stats.peakActive, 3);
    assert.ok(stats.peakQueued >= 10, JSON.stringify(stats));
    assert.equal(stats.requests, 20);
    assert.ok(stats.connectionsOpened >= 1 && stats.connectionsOpened <= 3, JSON.stringify(stats));
    assert.equal(
      processConnectionStats().connectionsOpened - before.connectionsOpened,
      stats.connectionsOpened,
    );
  } finally {
    await client.close();
    await server.shutdown();
  }
});

/** Pipes two connections together until either side ends. */
async function pipe(a: Deno.Conn, b: Deno.Conn, first: Uint8Array): Promise<void> {
  if (first.length > 0) await b.write(first);
  await Promise.allSettled([a.readable.pipeTo(b.writable), b.readable.pipeTo(a.writable)]);
}

async function readSome(conn: Deno.Conn, n = 4096): Promise<Uint8Array> {
  const buf = new Uint8Array(n);
  const got = await conn.read(buf);
  return buf.subarray(0, got ?? 0);
}

/** A tiny proxy on 127.0.0.1 (HTTP CONNECT or SOCKS5) that records the targets it was asked for. */
function startProxy(kind: "http" | "socks5"): { url: string; targets: string[]; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const targets: string[] = [];
  const conns = new Set<Deno.Conn>();
  const serve = async (down: Deno.Conn): Promise<void> => {
    conns.add(down);
    let host: string;
    let port: number;
    let rest = new Uint8Array(0);
    if (kind === "http") {
      let head = new Uint8Array(0);
      let text = "";
      while (!text.includes("\r\n\r\n")) {
        const chunk = await readSome(down);
        if (chunk.length === 0) return;
        head = new Uint8Array([...head, ...chunk]);
        text = new TextDecoder().decode(head);
      }
      const m = /^CONNECT ([^ ]+):(\d+) HTTP/.exec(text)!;
      [host, port] = [m[1], Number(m[2])];
      await down.write(new TextEncoder().encode("HTTP/1.1 200 Connection established\r\n\r\n"));
      rest = head.subarray(text.indexOf("\r\n\r\n") + 4);
    } else {
      await readSome(down); // greeting: 5, n, methods
      await down.write(new Uint8Array([5, 0]));
      const req = await readSome(down);
      const len = req[4];
      host = new TextDecoder().decode(req.subarray(5, 5 + len));
      port = (req[5 + len] << 8) | req[6 + len];
      await down.write(new Uint8Array([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
    }
    targets.push(`${host}:${port}`);
    const up = await Deno.connect({ hostname: host, port });
    conns.add(up);
    await pipe(down, up, rest);
  };
  const loop = (async () => {
    for await (const c of listener) serve(c).catch(() => {});
  })().catch(() => {});
  return {
    url: `${kind === "http" ? "http" : "socks5"}://127.0.0.1:${listener.addr.port}`,
    targets,
    async close() {
      listener.close();
      await loop;
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    },
  };
}

for (const kind of ["http", "socks5"] as const) {
  Deno.test(`http: proxy-url ${kind}:// tunnels lists and the exec websocket to the HTTPS API server`, async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "gw", namespace: "t", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { containers: [{ name: "wireguard" }] },
      status: { phase: "Running" },
    };
    const fake = await startFakeCluster({ name: "rome", objects: [pod], wireguard: {} });
    const proxy = startProxy(kind);
    try {
      const yaml = fake.kubeconfigYaml().replace(
        /^( *)server: (.*)$/m,
        `$1server: $2\n$1proxy-url: ${proxy.url}`,
      );
      assert.ok(yaml.includes("proxy-url"), yaml);
      const source = await createLiveSource({ kubeconfigYaml: yaml, execVia: "api" });
      try {
        await source.probeReachable();
        const pods = await source.list(KINDS.pods);
        assert.ok(pods.ok && pods.items.length === 1, JSON.stringify(pods));
        const ex = await source.exec("t", "gw", "wireguard", ["wg", "show", "all", "dump"]);
        assert.ok(ex.ok, JSON.stringify(ex));
      } finally {
        await source.close();
      }
      const host = new URL(fake.url).host;
      assert.ok(
        proxy.targets.length >= 2 && proxy.targets.every((t) => t === host),
        proxy.targets.join(", "),
      );
    } finally {
      await proxy.close();
      await fake.close();
    }
  });
}

Deno.test("http: tls-server-name is the name the server certificate is checked against", async () => {
  const fake = await startFakeCluster({ name: "rome", objects: [], wireguard: {} });
  try {
    const withName = (name: string) =>
      fake.kubeconfigYaml().replace(/^( *)server: (.*)$/m, `$1server: $2\n$1tls-server-name: ${name}`);
    const good = await createLiveSource({ kubeconfigYaml: withName("localhost") });
    try {
      await good.probeReachable();
    } finally {
      await good.close();
    }
    const bad = await createLiveSource({ kubeconfigYaml: withName("api.example.org") });
    try {
      await assert.rejects(
        bad.probeReachable(),
        /cannot reach the API server .*(altname|Hostname|certificate)/i,
      );
    } finally {
      await bad.close();
    }
  } finally {
    await fake.close();
  }
});
