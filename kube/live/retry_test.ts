/**
 * Retries of the live client (kube/http.ts) against the fake API server's injected faults: what is
 * retried (429, 5xx, resets — Retry-After honoured up to 10 times, pages one by one), what is not
 * (timeouts, 403, 404, truncated JSON, refused connections, exec), that each attempt gets the whole
 * request timeout from when it is sent (never the wait for a slot), that no retry waits past the
 * run's deadline, and that a list that needed retries says so.
 */
import assert from "node:assert/strict";
import { type FakeCluster, type FaultRule, startFakeCluster } from "../../fakekube/mod.ts";
import { KINDS } from "../kinds.ts";
import type { K8sObject } from "../source.ts";
import {
  afterRetries,
  backoffMs,
  DEFAULT_RETRY,
  isTransientError,
  retryAfterMs,
  type RetryPolicy,
} from "../http.ts";
import { createLiveSource, type LiveClusterSource } from "./source.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

/** Retries without noticeable waits, for the tests that count attempts rather than time them. */
const FAST: RetryPolicy = { attempts: 3, baseMs: 2, capMs: 10 };

const POD: K8sObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "gw", namespace: "t", creationTimestamp: "2026-01-01T00:00:00Z" },
  spec: { containers: [{ name: "wireguard" }] },
  status: { phase: "Running" },
};

function configmaps(n: number): K8sObject[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(4, "0")}`, namespace: "default" },
    data: { i: String(i) },
  }));
}

const WG = {
  "t/gw": {
    interfaces: [{
      name: "liqo-tunnel",
      privateKey: "cHJpdmF0ZQ==",
      publicKey: "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9d=",
      listenPort: 51840,
      fwmark: "off",
      mtu: 1340,
      peers: [],
    }],
  },
};

interface Env {
  fake: FakeCluster;
  source: LiveClusterSource;
}

async function withCluster(
  opts: {
    faults?: FaultRule[];
    retry?: RetryPolicy;
    timeoutMs?: number;
    configmaps?: number;
    latencyMs?: number;
    maxInFlight?: number;
    deadline?: number;
  },
  fn: (env: Env) => Promise<void>,
): Promise<void> {
  const fake = await startFakeCluster({
    name: "rome",
    objects: [POD, ...configmaps(opts.configmaps ?? 3)],
    wireguard: WG,
    tls: false,
    faults: opts.faults,
    latencyMs: opts.latencyMs,
  });
  const source = await createLiveSource({
    kubeconfigYaml: fake.kubeconfigYaml(),
    requestTimeoutMs: opts.timeoutMs ?? 5_000,
    retry: opts.retry ?? FAST,
    maxInFlight: opts.maxInFlight,
    deadline: opts.deadline,
    execVia: "api",
  });
  try {
    await fn({ fake, source });
  } finally {
    await source.close();
    await fake.close();
  }
}

const requestsTo = (fake: FakeCluster, path: string): number =>
  fake.requests.filter((r) => r.path === path).length;

Deno.test("retry: backoff doubles from the base, is capped, and jitters ±50%", () => {
  const p: RetryPolicy = { attempts: 5, baseMs: 200, capMs: 2_000 };
  assert.equal(backoffMs(p, 1, () => 0.5), 200);
  assert.equal(backoffMs(p, 2, () => 0.5), 400);
  assert.equal(backoffMs(p, 1, () => 0), 100);
  assert.equal(backoffMs(p, 1, () => 0.999), 300);
  assert.equal(backoffMs(p, 5, () => 0.5), 2_000);
  assert.equal(backoffMs(p, 9, () => 0.999), 2_000, "never above the cap");
  assert.deepEqual(DEFAULT_RETRY, { attempts: 3, baseMs: 200, capMs: 2_000 });
});

Deno.test("retry: Retry-After is delay-seconds or an HTTP date", () => {
  assert.equal(retryAfterMs(undefined), null);
  assert.equal(retryAfterMs("1"), 1_000);
  assert.equal(retryAfterMs(" 0 "), 0);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:03 GMT", now), 3_000);
  assert.equal(retryAfterMs("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
  assert.equal(retryAfterMs("soon"), null);
  assert.equal(afterRetries(0), "");
  assert.equal(afterRetries(1), " (after 1 retry)");
  assert.equal(afterRetries(2), " (after 2 retries)");
});

Deno.test("retry: only dropped connections are transient errors (not timeouts)", () => {
  const timeout = Object.assign(new Error("request timed out after 5 ms"), { name: "TimeoutError" });
  assert.ok(!isTransientError(timeout));
  assert.ok(isTransientError(Object.assign(new Error("aborted"), { code: "ECONNRESET" })));
  assert.ok(isTransientError(Object.assign(new Error("write EPIPE"), { code: "EPIPE" })));
  assert.ok(isTransientError(new Error("socket hang up")));
  assert.ok(!isTransientError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })));
  assert.ok(!isTransientError(Object.assign(new Error("getaddrinfo ENOTFOUND x"), { code: "ENOTFOUND" })));
  assert.ok(!isTransientError(new Error('Requires net access to "10.0.0.1:443"')));
  assert.ok(!isTransientError("ECONNRESET"));
  assert.ok(!isTransientError(null));
});

Deno.test({
  name: "retry: one 503 with Retry-After: 1 is waited out and the list says it was retried",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      faults: [{ path: "^/api/v1/pods$", type: "status", status: 503, retryAfterSeconds: 1, count: 1 }],
      retry: DEFAULT_RETRY,
    }, async ({ fake, source }) => {
      const t0 = Date.now();
      const out = await source.list(KINDS.pods);
      const ms = Date.now() - t0;
      assert.ok(out.ok, JSON.stringify(out));
      assert.equal(out.items.length, 1);
      assert.equal(out.retries, 1);
      assert.ok(ms >= 950, `Retry-After: 1 honoured (${ms} ms)`);
      assert.equal(requestsTo(fake, "/api/v1/pods"), 2);
      assert.deepEqual(fake.faultHits, ["GET /api/v1/pods -> status"]);
    });
  },
});

Deno.test({
  name: "retry: one 429, one 500, one reset — each list succeeds on its second attempt; a timeout is final",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      timeoutMs: 1_500,
      faults: [
        { path: "^/api/v1/pods$", type: "status", status: 429, count: 1 },
        { path: "^/api/v1/configmaps$", type: "status", status: 500, count: 1 },
        { path: "^/api/v1/secrets$", type: "reset", count: 1 },
        { path: "^/api/v1/nodes$", type: "delay", ms: 5_000, count: 1 },
      ],
    }, async ({ fake, source }) => {
      const outs = await Promise.all(
        (["pods", "configmaps", "secrets", "nodes"] as const).map((k) => source.list(KINDS[k])),
      );
      for (const out of outs.slice(0, 3)) {
        assert.ok(out.ok, JSON.stringify(out));
        assert.equal(out.retries, 1);
      }
      // The server had the whole request timeout: like client-go, no second attempt.
      const nodes = outs[3];
      assert.ok(!nodes.ok && nodes.reason === "error", JSON.stringify(nodes));
      assert.match(nodes.message, /timed out after 1500 ms$/);
      assert.equal(requestsTo(fake, "/api/v1/nodes"), 1);
      assert.equal(fake.faultHits.length, 4);
      // Without a fault nothing is retried and nothing says so.
      const clean = await source.list(KINDS.namespaces);
      assert.ok(clean.ok);
      assert.equal(clean.retries, undefined);
    });
  },
});

Deno.test({
  name:
    "retry: persistent 500s and resets give up after 3 attempts, saying so; 403/404/truncated are not retried",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      faults: [
        { path: "^/api/v1/pods$", type: "status", status: 500 },
        { path: "^/api/v1/configmaps$", type: "reset" },
        { path: "^/api/v1/secrets$", type: "status", status: 403 },
        { path: "^/api/v1/nodes$", type: "status", status: 404 },
        { path: "^/api/v1/services$", type: "truncated" },
        { path: "^/api/v1/events$", type: "status", status: 503, retryAfterSeconds: 3_600 },
      ],
    }, async ({ fake, source }) => {
      const [pods, cms, secrets, nodes, services, events] = await Promise.all(
        (["pods", "configmaps", "secrets", "nodes", "services", "events"] as const).map((k) =>
          source.list(KINDS[k])
        ),
      );
      assert.ok(!pods.ok && pods.reason === "error", JSON.stringify(pods));
      assert.match(pods.message, /HTTP 500|injected fault/);
      assert.match(pods.message, /\(after 2 retries\)$/);
      assert.equal(requestsTo(fake, "/api/v1/pods"), 3);
      assert.ok(!cms.ok && cms.reason === "error", JSON.stringify(cms));
      assert.match(cms.message, /ECONNRESET|aborted|reset/);
      assert.match(cms.message, /\(after 2 retries\)$/);
      assert.equal(requestsTo(fake, "/api/v1/configmaps"), 3);
      assert.ok(!secrets.ok && secrets.reason === "forbidden", JSON.stringify(secrets));
      assert.equal(requestsTo(fake, "/api/v1/secrets"), 1);
      assert.ok(!nodes.ok && nodes.reason === "missing", JSON.stringify(nodes));
      assert.equal(requestsTo(fake, "/api/v1/nodes"), 1);
      assert.ok(!services.ok && services.reason === "error", JSON.stringify(services));
      assert.match(services.message, /invalid JSON/);
      assert.equal(requestsTo(fake, "/api/v1/services"), 1);
      // A Retry-After beyond the request's budget is not waited for.
      assert.ok(!events.ok && events.reason === "error", JSON.stringify(events));
      assert.equal(requestsTo(fake, "/api/v1/events"), 1);
    });
  },
});

Deno.test({
  name: "retry: a persistent delay past the timeout ends after one request timeout, not retried",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      timeoutMs: 900,
      retry: DEFAULT_RETRY,
      faults: [{ path: "^/api/v1/pods$", type: "delay", ms: 10_000 }],
    }, async ({ source }) => {
      const t0 = Date.now();
      const out = await source.list(KINDS.pods);
      const ms = Date.now() - t0;
      assert.ok(!out.ok && out.reason === "error", JSON.stringify(out));
      assert.match(out.message, /timed out after 900 ms$/);
      assert.ok(ms >= 880 && ms < 1_400, `one request timeout (${ms} ms)`);
    });
  },
});

Deno.test({
  name: "retry: list pages are retried one by one",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      configmaps: 1_203,
      faults: [
        { path: "^/api/v1/configmaps$", query: "continue=", type: "status", status: 503, count: 1 },
        { path: "^/api/v1/configmaps$", query: "continue=", type: "reset", count: 1 },
      ],
    }, async ({ fake, source }) => {
      const out = await source.list(KINDS.configmaps);
      assert.ok(out.ok, JSON.stringify(out).slice(0, 300));
      assert.equal(out.items.length, 1_203);
      assert.equal(new Set(out.items.map((o) => o.metadata.name)).size, 1_203);
      assert.equal(out.retries, 2);
      const pages = fake.requests.filter((r) => r.path === "/api/v1/configmaps");
      assert.equal(pages.length, 5, "3 pages, the second one sent 3 times");
      assert.equal(pages.filter((r) => !r.query.includes("continue=")).length, 1, "page 1 is not re-read");
    });
  },
});

Deno.test({
  name: "retry: malformed list bodies are errors, never empty lists, and are not retried",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      faults: [
        { path: "^/api/v1/pods$", type: "items", items: "string" },
        { path: "^/api/v1/configmaps$", type: "items", items: "null" },
        { path: "^/api/v1/secrets$", type: "items", items: "bare-array" },
        { path: "^/api/v1/nodes$", type: "loop-continue" },
      ],
    }, async ({ fake, source }) => {
      const [pods, cms, secrets, nodes] = await Promise.all(
        (["pods", "configmaps", "secrets", "nodes"] as const).map((k) => source.list(KINDS[k])),
      );
      for (const out of [pods, cms, secrets]) {
        assert.ok(!out.ok && out.reason === "error", JSON.stringify(out));
        assert.match(out.message, /malformed list response/);
      }
      assert.ok(!nodes.ok && nodes.reason === "error", JSON.stringify(nodes));
      assert.match(nodes.message, /repeated continue token/);
      assert.equal(requestsTo(fake, "/api/v1/pods"), 1);
      assert.equal(requestsTo(fake, "/api/v1/nodes"), 2);
    });
  },
});

Deno.test({
  name: "retry: exec is never retried; exec faults are outcomes, never crashes",
  ...sanitizers,
  fn: async () => {
    for (const exec of ["malformed-status", "unknown-channel", "close", "hang"] as const) {
      await withCluster({
        timeoutMs: 600,
        faults: [{ path: "/pods/[^/]+/exec$", type: "exec", exec }],
      }, async ({ fake, source }) => {
        const out = await source.exec("t", "gw", "wireguard", ["wg", "show", "all", "dump"]);
        if (exec === "unknown-channel") {
          // Data on a channel nobody opened is either ignored or refused, never a crash.
          if (out.ok) assert.equal(out.exitCode, 0);
          else assert.match(out.message, /channel|malformed/);
        } else {
          assert.ok(!out.ok, `${exec}: ${JSON.stringify(out)}`);
          assert.equal(out.reason, "error");
          if (exec === "hang") assert.match(out.message, /timed out after 600 ms/);
          if (exec === "close") assert.match(out.message, /without an exit status/);
          if (exec === "malformed-status") assert.match(out.message, /malformed/);
        }
        assert.equal(fake.requests.filter((r) => r.upgrade).length, 1, `${exec}: one exec request`);
      });
    }
  },
});

Deno.test({
  name: "retry: a refused connection is not retried (an unreachable cluster fails fast)",
  ...sanitizers,
  fn: async () => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = l.addr.port;
    l.close();
    const fake = await startFakeCluster({ name: "rome", objects: [], wireguard: {}, tls: false });
    const yaml = fake.kubeconfigYaml().replace(fake.url, `http://127.0.0.1:${port}`);
    await fake.close();
    const source = await createLiveSource({ kubeconfigYaml: yaml, requestTimeoutMs: 5_000 });
    try {
      const t0 = Date.now();
      await assert.rejects(source.probeReachable(), /cannot reach|refused/i);
      assert.ok(Date.now() - t0 < 1_000, "no backoff on a refused connection");
      const out = await source.list(KINDS.pods);
      assert.ok(!out.ok && !/after \d+ retr/.test(out.message), JSON.stringify(out));
    } finally {
      await source.close();
    }
  },
});

Deno.test({
  name: "retry: Retry-After is honoured up to 10 times (client-go's maxRetries), then the answer stands",
  ...sanitizers,
  fn: async () => {
    const busy = (count?: number): FaultRule[] => [
      {
        path: "^/api/v1/pods$",
        type: "status",
        status: 429,
        retryAfterSeconds: 0,
        ...(count ? { count } : {}),
      },
    ];
    await withCluster({ faults: busy(10) }, async ({ fake, source }) => {
      const out = await source.list(KINDS.pods);
      assert.ok(out.ok, JSON.stringify(out));
      assert.equal(out.retries, 10, "beyond the policy's 3 attempts: the server asked");
      assert.equal(requestsTo(fake, "/api/v1/pods"), 11);
    });
    await withCluster({ faults: busy() }, async ({ fake, source }) => {
      const out = await source.list(KINDS.pods);
      assert.ok(!out.ok && out.reason === "error", JSON.stringify(out));
      assert.match(out.message, /\(after 10 retries\)$/);
      assert.equal(requestsTo(fake, "/api/v1/pods"), 11);
    });
  },
});

Deno.test({
  name: "retry: no Retry-After wait ends past the run's deadline",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      faults: [{ path: "^/api/v1/pods$", type: "status", status: 503, retryAfterSeconds: 1, count: 1 }],
      deadline: Date.now() + 600,
    }, async ({ fake, source }) => {
      const t0 = Date.now();
      const out = await source.list(KINDS.pods);
      assert.ok(!out.ok && out.reason === "error", JSON.stringify(out));
      assert.ok(Date.now() - t0 < 500, "the wait was not started");
      assert.equal(requestsTo(fake, "/api/v1/pods"), 1);
    });
  },
});

Deno.test({
  name: "retry: the request timeout starts when a request is sent, not while it waits for a slot",
  ...sanitizers,
  fn: async () => {
    // Each answer takes 400 ms, 2 in flight, 8 lists: the last ones wait ~1.2 s for a slot, longer
    // than the 700 ms request timeout, and still succeed (kubectl, one request at a time, would too).
    await withCluster({ latencyMs: 400, maxInFlight: 2, timeoutMs: 700 }, async ({ source }) => {
      const kinds = ["pods", "configmaps", "secrets", "nodes", "services", "namespaces", "events"] as const;
      const outs = await Promise.all([...kinds, "pods" as const].map((k) => source.list(KINDS[k])));
      for (const out of outs) assert.ok(out.ok, JSON.stringify(out));
    });
  },
});

Deno.test({
  name: "retry: closing the client ends the requests waiting for a slot and the retry waits",
  ...sanitizers,
  fn: async () => {
    await withCluster({
      latencyMs: 300,
      maxInFlight: 1,
      timeoutMs: 60_000,
      faults: [{ path: "^/api/v1/secrets$", type: "status", status: 503, retryAfterSeconds: 30 }],
    }, async ({ source }) => {
      const t0 = Date.now();
      const outs = Promise.all(
        (["pods", "configmaps", "secrets", "nodes"] as const).map((k) => source.list(KINDS[k])),
      );
      await new Promise((r) => setTimeout(r, 100));
      await source.close();
      const done = await outs;
      assert.ok(Date.now() - t0 < 5_000, "nothing waited for its slot or for Retry-After");
      assert.ok(done.some((o) => !o.ok), JSON.stringify(done));
    });
  },
});
