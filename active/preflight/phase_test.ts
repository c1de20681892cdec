/**
 * `preflight --probe`'s phase through its function API against two fake clusters over the real
 * client (plain HTTP, in-process): one row per outcome and recommendation — healthy (the server on
 * the provider, a LoadBalancer), the server on the consumer, a NodePort, a port mapping, nothing
 * works, admission refusing the probe pods, an MTU limit, the API reachable from the host only —
 * each asserting the PF-[P] verdicts, the path facts the verdict line reads, and that nothing of
 * the run is left in either cluster; and Ctrl-C during the echo removes everything.
 */
import assert from "node:assert/strict";
import { createPreflightPhase, type PreflightProbeOptions } from "./phase.ts";
import type { Outcome } from "../../checks/types.ts";
import type { PreflightPathFacts } from "../../checks/facts.ts";
import { PROBE_IMAGES } from "../fleet/images.ts";
import { type PairShape, preflightPair } from "../../tests/support/preflight_pair.ts";
import type { SignalHost } from "../fleet/signals.ts";
import { cleanupLeftovers } from "../fleet/cleanup.ts";

const IDS = ["PF-API", "PF-EXP", "PF-UDP", "PF-DIR", "PF-MTU"] as const;

function options(extra: Partial<PreflightProbeOptions> = {}): PreflightProbeOptions {
  return {
    serviceType: null,
    serverSide: null,
    port: 51840,
    mtu: 1340,
    images: { ...PROBE_IMAGES },
    probeTimeoutMs: 3_000,
    cleanupTimeoutMs: 10_000,
    keep: false,
    runId: "pftest01",
    ...extra,
  };
}

const HOST_OK = () => Promise.resolve({ outcome: "ok" as const, detail: "", ms: 1 });

const NO_SIGNALS: SignalHost = { add: () => {}, remove: () => {} };

async function run(
  shape: PairShape,
  opts: Partial<PreflightProbeOptions> = {},
  signalHost = NO_SIGNALS,
  onProgress?: (l: string) => void,
) {
  const pair = await preflightPair(shape);
  try {
    const phase = createPreflightPhase({
      consumer: pair.consumer.target,
      provider: pair.provider.target,
      options: options(opts),
      control: { signal: new AbortController().signal, signalHost, onProgress, write: () => {} },
      timeoutLabel: "--timeout 2m",
      hostDial: HOST_OK,
    });
    const views = { local: pair.consumer.view, remote: pair.provider.view };
    const out: Record<string, Outcome> = {};
    for (const id of IDS) out[id] = await phase.outcome(id, views);
    return {
      out,
      phase,
      leftovers: [...pair.leftovers("rome"), ...pair.leftovers("milan")],
      path: (out["PF-MTU"].facts?.preflightPath ?? out["PF-DIR"].facts?.preflightPath) as
        | PreflightPathFacts
        | undefined,
    };
  } finally {
    await pair.close();
  }
}

function statuses(out: Record<string, Outcome>): Record<string, string> {
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.status]));
}

interface Row {
  name: string;
  shape: PairShape;
  opts?: Partial<PreflightProbeOptions>;
  expect: Record<string, string>;
  path?: Partial<PreflightPathFacts> | null;
  match?: Partial<Record<(typeof IDS)[number], RegExp>>;
}

const PENDING: PairShape["rome"] = { lifecycle: { loadBalancer: { mode: "pending" } } };

const ROWS: Row[] = [
  {
    name: "healthy: the server on the provider behind a LoadBalancer",
    shape: {},
    expect: { "PF-API": "pass", "PF-EXP": "pass", "PF-UDP": "pass", "PF-DIR": "pass", "PF-MTU": "pass" },
    path: { serverSide: "provider", serviceType: "LoadBalancer", port: 51840 },
    match: {
      "PF-DIR": /on the provider \(Liqo's default\), exposed as a LoadBalancer \(UDP 198\.51\.100\.10:51840/,
      "PF-UDP": /consumer → provider and provider → consumer/,
    },
  },
  {
    name: "provider LoadBalancer pending, private nodes: the server on the consumer",
    shape: { network: { wan: { internalRoutable: false } }, milan: PENDING },
    opts: { probeTimeoutMs: 1_000 },
    expect: { "PF-EXP": "warn", "PF-UDP": "warn", "PF-DIR": "pass", "PF-MTU": "pass" },
    path: { serverSide: "consumer", serviceType: "LoadBalancer" },
    match: {
      "PF-EXP": /no LoadBalancer address within 1 s \(pending\)/,
      "PF-DIR": /--gw-server-service-location Consumer/,
    },
  },
  {
    name: "no LoadBalancer anywhere, provider nodes with ExternalIPs: a NodePort",
    shape: {
      network: { wan: { internalRoutable: false } },
      rome: PENDING,
      milan: {
        ...PENDING,
        externalIPs: { "milan-worker-1": "203.0.113.21", "milan-worker-2": "203.0.113.22" },
      },
    },
    opts: { serverSide: "provider", serviceType: "NodePort" },
    expect: { "PF-EXP": "pass", "PF-UDP": "pass", "PF-DIR": "pass" },
    path: { serverSide: "provider", serviceType: "NodePort" },
    match: {
      "PF-DIR": /NodePort .*203\.0\.113\.2[12]:3\d{4} \(NodePort on node milan-worker-[12], ExternalIP\)/,
    },
  },
  {
    name: "only a port mapping in front of the provider's NodePort carries UDP",
    shape: {
      network: {
        wan: {
          internalRoutable: false,
          portMappings: [{ address: "203.0.113.77", port: 40000, cluster: "milan", nodePort: 31840 }],
        },
      },
      rome: PENDING,
      milan: PENDING,
    },
    opts: {
      serverSide: "provider",
      natEndpoint: { address: "203.0.113.77", port: 40000 },
      nodePort: 31840,
      probeTimeoutMs: 1_000,
    },
    expect: { "PF-UDP": "pass", "PF-DIR": "pass", "PF-EXP": "fail" },
    path: {
      serverSide: "provider",
      serviceType: "NodePort",
      port: 31840,
      clientAddress: "203.0.113.77",
      clientPort: 40000,
    },
    match: { "PF-DIR": /--gw-client-address 203\.0\.113\.77 --gw-client-port 40000/ },
  },
  {
    name: "the provider's LoadBalancer gets an address but drops UDP: its NodePort carries the echo",
    shape: { milan: { lifecycle: { loadBalancer: { mode: "dropsUdp" } } } },
    expect: { "PF-EXP": "pass", "PF-UDP": "pass", "PF-DIR": "pass" },
    path: { serverSide: "provider", serviceType: "NodePort" },
    match: {
      "PF-UDP": /→ UDP 198\.51\.100\.1\d:51840 \(LoadBalancer\): no answer \(timeout\)/,
      "PF-DIR":
        /exposed as a NodePort \(--gw-server-service-type NodePort; the echo crossed on UDP 10\.10\.20\.1\d:3\d{4} \(NodePort on node milan-worker-[12], InternalIP\)\)/,
    },
  },
  {
    name: "a firewall drops UDP both ways: nothing works, open what is named",
    shape: { network: { wan: { firewall: [{ from: "rome", to: "milan" }, { from: "milan", to: "rome" }] } } },
    expect: { "PF-EXP": "pass", "PF-UDP": "fail", "PF-DIR": "fail", "PF-MTU": "unknown" },
    path: { serverSide: null },
    match: {
      "PF-DIR":
        /open UDP 198\.51\.100\.1\d:51840 \(LoadBalancer\) in provider milan-8d1f03 to consumer rome-4b2a9e's egress/,
    },
  },
  {
    name: "a webhook refuses the provider's probe pods: inconclusive, never blocked",
    shape: {
      milan: {
        lifecycle: {
          admissionDeny: [{
            resource: "pods",
            webhook: "validate.kyverno.svc",
            message: "images must come from corp.example",
          }],
        },
      },
    },
    expect: { "PF-UDP": "unknown", "PF-DIR": "unknown", "PF-MTU": "unknown", "PF-API": "pass" },
    path: { serverSide: null },
    match: { "PF-UDP": /rejected by admission webhook "validate\.kyverno\.svc"/ },
  },
  {
    name: "a ResourceQuota of one pod on the provider: the reverse direction cannot run, the other decides",
    shape: { milan: { lifecycle: { quota: { pods: 1 } } } },
    expect: { "PF-UDP": "pass", "PF-DIR": "pass" },
    path: { serverSide: "provider" },
    match: { "PF-UDP": /probe pod rejected by admission|could not run/ },
  },
  {
    name: "a 1380-byte path: warn with the safe --mtu",
    shape: { network: { wan: { mtu: 1380 } } },
    expect: { "PF-UDP": "pass", "PF-MTU": "warn" },
    path: { serverSide: "provider", mtu: 1320 },
    match: { "PF-MTU": /1380 bytes \(1381 lost\) < 1400 \(tunnel MTU 1340 \+ 60\): peer with --mtu 1320/ },
  },
  {
    name: "the API server answers this host, not the consumer's pods",
    shape: { network: { wan: { api: { rome: "timeout" } } } },
    expect: { "PF-API": "fail", "PF-UDP": "pass" },
    match: {
      "PF-API": /the host reaches http:\/\/127\.0\.0\.1:\d+, the consumer cluster cannot: no TCP\/TLS answer/,
    },
  },
];

for (const row of ROWS) {
  Deno.test(`preflight phase: ${row.name}`, async () => {
    const r = await run(row.shape, row.opts);
    const got = statuses(r.out);
    for (const [id, want] of Object.entries(row.expect)) {
      assert.equal(got[id], want, `${id}: ${r.out[id].summary}\n${(r.out[id].evidence ?? []).join("\n")}`);
    }
    for (const [id, re] of Object.entries(row.match ?? {})) {
      assert.match([r.out[id].summary, ...(r.out[id].evidence ?? [])].join("\n"), re!, id);
    }
    if (row.path !== undefined) {
      for (const [k, v] of Object.entries(row.path ?? {})) {
        assert.deepEqual(
          (r.path as unknown as Record<string, unknown>)?.[k],
          v,
          `path.${k}: ${JSON.stringify(r.path)}`,
        );
      }
    }
    assert.deepEqual(r.leftovers, [], "nothing of the run is left");
    const rec = r.phase.preflightRecord();
    assert.ok(rec && rec.created.some((c) => c.kind === "Namespace" && c.namespace === null));
    assert.ok(rec.cleanup.every((c) => c.status === "removed"), JSON.stringify(rec.cleanup));
    assert.equal(r.phase.error(), null);
  });
}

Deno.test("preflight phase: Ctrl-C during the echo removes everything and leaves every PF-[P] unknown", async () => {
  const handlers: (() => void)[] = [];
  const host: SignalHost = { add: (_s, h) => handlers.push(h), remove: () => {} };
  // A firewall keeps the echo waiting; the signal comes as it starts.
  const r = await run(
    {
      network: {
        timeScale: 1,
        wan: { firewall: [{ from: "rome", to: "milan" }, { from: "milan", to: "rome" }] },
      },
    },
    {},
    host,
    (line) => {
      if (line.startsWith("PF-UDP: echo")) handlers[0]?.();
    },
  );
  assert.equal(r.phase.stoppedBy(), "SIGINT");
  for (const id of IDS) assert.equal(r.out[id].status, "unknown", `${id}: ${r.out[id].summary}`);
  assert.match(r.out["PF-UDP"].summary, /interrupted by SIGINT; what it created was removed/);
  assert.deepEqual(r.leftovers, []);
});

Deno.test("preflight phase: a missing permission is one tool error naming it and the role; nothing is created", async () => {
  const pair = await preflightPair({ milan: { lifecycle: { deny: ["create services"] } } });
  try {
    const phase = createPreflightPhase({
      consumer: pair.consumer.target,
      provider: pair.provider.target,
      options: options(),
      control: { signal: new AbortController().signal, signalHost: NO_SIGNALS, write: () => {} },
      timeoutLabel: "--timeout 2m",
      hostDial: HOST_OK,
    });
    const o = await phase.outcome("PF-UDP", { local: pair.consumer.view, remote: pair.provider.view });
    assert.equal(o.status, "unknown");
    const err = phase.error() as Error;
    assert.match(
      err.message,
      /cannot create services in namespace flyingfish-preflight-pftest01 \(cluster milan-8d1f03\)/,
    );
    assert.match(err.message, /deploy\/preflight-probe-clusterrole\.yaml/);
    assert.deepEqual([...pair.leftovers("rome"), ...pair.leftovers("milan")], []);
    assert.ok(!pair.fakes.rome.requests.some((r) => r.method === "POST" && r.path === "/api/v1/namespaces"));
  } finally {
    await pair.close();
  }
});

Deno.test("preflight phase: --keep keeps both namespaces and names the command; probe --cleanup finds and removes them", async () => {
  const pair = await preflightPair({});
  try {
    const lines: string[] = [];
    const phase = createPreflightPhase({
      consumer: pair.consumer.target,
      provider: pair.provider.target,
      options: options({ keep: true, runId: "pfkeep01" }),
      control: {
        signal: new AbortController().signal,
        signalHost: NO_SIGNALS,
        write: () => {},
        onProgress: (l) => lines.push(l),
      },
      timeoutLabel: "--timeout 2m",
      hostDial: HOST_OK,
    });
    await phase.outcome("PF-UDP", { local: pair.consumer.view, remote: pair.provider.view });
    assert.ok(
      lines.some((l) =>
        /^kept flyingfish-preflight-pfkeep01: remove it with: flyingfish probe --cleanup --run-id pfkeep01 --context rome --remote-context milan$/
          .test(l)
      ),
      lines.join("\n"),
    );
    assert.ok(pair.leftovers("rome").includes("Namespace /flyingfish-preflight-pfkeep01"));
    assert.ok(pair.leftovers("milan").includes("Pod flyingfish-preflight-pfkeep01/ff-preflight-echo"));
    const records = await cleanupLeftovers([pair.consumer.target, pair.provider.target], {
      all: true,
      budgetMs: 10_000,
    });
    assert.deepEqual(records.map((r) => `${r.namespace} ${r.status}`), [
      "flyingfish-preflight-pfkeep01 removed",
      "flyingfish-preflight-pfkeep01 removed",
    ]);
    assert.deepEqual([...pair.leftovers("rome"), ...pair.leftovers("milan")], []);
  } finally {
    await pair.close();
  }
});

Deno.test("preflight phase: the run's --timeout during the echo stops it, removes everything, every PF-[P] unknown", async () => {
  const pair = await preflightPair({
    network: {
      timeScale: 1,
      wan: { firewall: [{ from: "rome", to: "milan" }, { from: "milan", to: "rome" }] },
    },
  });
  try {
    const phase = createPreflightPhase({
      consumer: pair.consumer.target,
      provider: pair.provider.target,
      options: options(),
      control: {
        signal: new AbortController().signal,
        signalHost: NO_SIGNALS,
        write: () => {},
        runTimeoutMs: 1_500,
      },
      timeoutLabel: "--timeout 1.5s",
      hostDial: HOST_OK,
    });
    const o = await phase.outcome("PF-DIR", { local: pair.consumer.view, remote: pair.provider.view });
    assert.equal(phase.stoppedBy(), "timeout");
    assert.equal(o.status, "unknown");
    assert.match(o.summary, /--timeout 1\.5s reached; what it created was removed/);
    assert.deepEqual([...pair.leftovers("rome"), ...pair.leftovers("milan")], []);
  } finally {
    await pair.close();
  }
});

Deno.test("preflight phase: clusters peered already (the base peering) are not probed; nothing is created", async () => {
  const pair = await preflightPair({ bases: { rome: "rome", milan: "milan" } });
  try {
    const phase = createPreflightPhase({
      consumer: pair.consumer.target,
      provider: pair.provider.target,
      options: options(),
      control: { signal: new AbortController().signal, signalHost: NO_SIGNALS, write: () => {} },
      timeoutLabel: "--timeout 2m",
      hostDial: HOST_OK,
    });
    const o = await phase.outcome("PF-UDP", { local: pair.consumer.view, remote: pair.provider.view });
    assert.equal(o.status, "skip");
    assert.match(o.summary, /rome-4b2a9e and milan-8d1f03 are peered already: run flyingfish check/);
    assert.equal(phase.record(), null);
    assert.ok(!pair.fakes.rome.requests.some((r) => r.method === "POST"));
  } finally {
    await pair.close();
  }
});
