import assert from "node:assert/strict";
import type { ExecOutcome, K8sObject } from "../../kube/source.ts";
import { SERVICE_SWEEP_MARKER } from "../commands.ts";
import type { ProbePod } from "../model.ts";
import { REFLECTED_SLICE_MANAGER } from "./judge.ts";
import {
  type ListOutcome,
  measureService,
  parseSweep,
  type ReadOutcome,
  serviceFqdn,
  type ServiceProbeIo,
  SWEEP_BATCH_MAX,
  SWEEP_REQUESTS_PER_BACKEND,
  sweepBackends,
} from "./measure.ts";

Deno.test("parseSweep: pod names and ERR lines, blank lines ignored", () => {
  assert.deepEqual(parseSweep("ff-a\nERR 28\n\nff-b\n  ff-a  \n"), {
    answers: ["ff-a", "ff-b", "ff-a"],
    errors: ["ERR 28"],
  });
});

const clock = () => {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

Deno.test("sweepBackends: batches of one request per backend stop as soon as every backend answered", async () => {
  const expected = ["a", "b", "c"];
  const sizes: number[] = [];
  // Round 1 answers a, a, b; round 2 answers c first: the sweep must stop after round 2.
  const script = [["a", "a", "b"], ["c", "a", "a"], ["a", "b", "c"]];
  const c = clock();
  const res = await sweepBackends(
    (count) => {
      sizes.push(count);
      return Promise.resolve({ answers: script[sizes.length - 1].slice(0, count), errors: [] });
    },
    expected,
    { deadline: 60_000, now: c.now, signal: new AbortController().signal },
  );
  assert.deepEqual(sizes, [3, 3]);
  assert.equal(res.stop, "all-answered");
  assert.equal(res.requests, 6);
  assert.equal(res.bound, 3 * SWEEP_REQUESTS_PER_BACKEND);
  assert.deepEqual(res.answered, { a: 4, b: 1, c: 1 });
});

Deno.test("sweepBackends: a silent backend ends at backends × 10 requests, never more", async () => {
  const sizes: number[] = [];
  const res = await sweepBackends(
    (count) => {
      sizes.push(count);
      return Promise.resolve({ answers: Array(count - 1).fill("a"), errors: ["ERR 28"] });
    },
    ["a", "b", "c", "d"],
    { deadline: Infinity, now: () => 0, signal: new AbortController().signal },
  );
  assert.equal(res.stop, "bound");
  assert.equal(res.requests, 40);
  assert.equal(sizes.reduce((x, y) => x + y, 0), 40);
  assert.equal(res.errors, 10);
});

Deno.test("sweepBackends: many backends go in batches of at most SWEEP_BATCH_MAX (each inside the exec timeout)", async () => {
  const expected = Array.from({ length: 10 }, (_, i) => `p${i}`);
  const sizes: number[] = [];
  let next = 0;
  const res = await sweepBackends(
    (count) => {
      sizes.push(count);
      return Promise.resolve({ answers: Array.from({ length: count }, () => `p${next++ % 10}`), errors: [] });
    },
    expected,
    { deadline: Infinity, now: () => 0, signal: new AbortController().signal },
  );
  assert.deepEqual(sizes, [SWEEP_BATCH_MAX, SWEEP_BATCH_MAX]);
  assert.equal(res.requests, 12);
  assert.equal(res.stop, "all-answered");
});

Deno.test("sweepBackends: the deadline ends it after the first batch; an exec failure at once", async () => {
  const c = clock();
  let calls = 0;
  const timed = await sweepBackends(
    () => {
      calls++;
      c.advance(5_000);
      return Promise.resolve({ answers: ["a"], errors: [] });
    },
    ["a", "b"],
    { deadline: 1_000, now: c.now, signal: new AbortController().signal },
  );
  assert.equal(calls, 1);
  assert.equal(timed.stop, "timeout");
  const failed = await sweepBackends(() => Promise.resolve("pods/exec forbidden"), ["a"], {
    deadline: Infinity,
    now: () => 0,
    signal: new AbortController().signal,
  });
  assert.equal(failed.stop, "exec-failed");
  assert.equal(failed.detail, "pods/exec forbidden");
  assert.equal(failed.requests, 0);
});

// --- measureService against an in-memory pair of clusters -------------------------------------

const RUN = "abcd1234";
const NS = `flyingfish-probe-${RUN}`;
const RNS = `${NS}-rome-4b2a9e`;
const pod = (name: string, side: "local" | "remote", node: string, podIP: string): ProbePod => ({
  side,
  execSide: "local",
  namespace: NS,
  name,
  node,
  podIP,
});
const LOCAL = [
  pod("ff-probe-rome-worker-1", "local", "rome-worker-1", "10.244.1.5"),
  pod("ff-probe-rome-worker-2", "local", "rome-worker-2", "10.244.2.5"),
];
const OFF = [
  pod("ff-probe-milan-8d1f03-0", "remote", "milan-8d1f03", "10.71.1.7"),
  pod("ff-probe-milan-8d1f03-1", "remote", "milan-8d1f03", "10.71.2.7"),
];

interface World {
  /** Polls of the consumer's slices before they list everything. */
  slicesAfter: number;
  /** The reflected slice on the provider is never created. */
  noReflectedSlice?: boolean;
  /** Backends whose requests never answer. */
  dead?: string[];
  /** DNS names that do not resolve. */
  nxdomain?: string[];
  provider: boolean;
}

function world(w: World) {
  const c = clock();
  let created: K8sObject | null = null;
  let polls = 0;
  const execs: string[][] = [];
  const epOf = (p: ProbePod, address: string) => ({
    addresses: [address],
    conditions: { ready: true },
    targetRef: { kind: "Pod", name: p.name },
  });
  const ok = (object: K8sObject): ReadOutcome => ({ ok: true, object });
  const notFound: ReadOutcome = { ok: false, status: 404, message: "not found" };
  const slice = (name: string, endpoints: unknown[], reflected = false): K8sObject => ({
    metadata: {
      name,
      labels: {
        "kubernetes.io/service-name": "ff-probe",
        ...(reflected ? { "endpointslice.kubernetes.io/managed-by": REFLECTED_SLICE_MANAGER } : {}),
      },
    },
    endpoints,
  });
  const consumerApi = {
    get: (path: string): Promise<ReadOutcome> => {
      if (path.endsWith("/namespaceoffloadings/offloading")) {
        return Promise.resolve(
          ok({ metadata: { name: "offloading" }, status: { remoteNamespaceName: RNS } }),
        );
      }
      if (path === `/api/v1/namespaces/${NS}/services/ff-probe` && created) {
        return Promise.resolve(
          ok({ ...created, spec: { ...(created.spec as object), clusterIP: "10.96.0.10" } }),
        );
      }
      return Promise.resolve(notFound);
    },
    list: (path: string, sel: string): Promise<ListOutcome> => {
      assert.equal(path, `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`);
      assert.equal(sel, "kubernetes.io/service-name=ff-probe");
      polls++;
      const all = [...LOCAL, ...OFF];
      const listed = polls > w.slicesAfter ? all : all.slice(0, 1);
      return Promise.resolve({
        ok: true,
        items: [slice("ff-probe-x1", listed.map((p) => epOf(p, p.podIP)))],
      });
    },
  };
  const providerApi = {
    get: (path: string): Promise<ReadOutcome> =>
      Promise.resolve(
        path === `/api/v1/namespaces/${RNS}/services/ff-probe`
          ? ok({ metadata: { name: "ff-probe" }, spec: { clusterIP: "10.112.0.20" } })
          : notFound,
      ),
    list: (path: string): Promise<ListOutcome> => {
      assert.equal(path, `/apis/discovery.k8s.io/v1/namespaces/${RNS}/endpointslices`);
      const items = [slice("ff-probe-n1", OFF.map((p) => epOf(p, p.podIP.replace("10.71.", "10.244."))))];
      if (!w.noReflectedSlice) {
        items.push(
          slice("ff-probe-x1", LOCAL.map((p) => epOf(p, p.podIP.replace("10.244.", "10.70."))), true),
        );
      }
      return Promise.resolve({ ok: true, items });
    },
  };
  let rr = 0;
  const exec = (p: ProbePod, command: readonly string[]): Promise<ExecOutcome> => {
    execs.push([p.name, ...command]);
    const done = (stdout: string, exitCode = 0): Promise<ExecOutcome> =>
      Promise.resolve({ ok: true, stdout, stderr: "", exitCode, via: "api" });
    if (command[0] === "getent") {
      const name = command[2];
      if (w.nxdomain?.includes(name)) return done("", 2);
      return done(`${name.includes(RNS) ? "10.112.0.20" : "10.96.0.10"}   ${name}\n`);
    }
    const script = command[2];
    assert.ok(script.includes(SERVICE_SWEEP_MARKER));
    const count = Number(/count=(\d+)/.exec(script)![1]);
    const host = /host=(\S+);/.exec(script)![1];
    // The provider's Service has no reflected local endpoints when the reflected slice is missing.
    const reachable = [...LOCAL, ...OFF].filter((b) =>
      !w.dead?.includes(b.name) && !(host === "10.112.0.20" && w.noReflectedSlice && b.side === "local")
    );
    const lines = Array.from({ length: count }, () => reachable[rr++ % reachable.length]?.name ?? "ERR 7");
    c.advance(50);
    return done(lines.join("\n") + "\n");
  };
  const io: ServiceProbeIo = {
    runId: RUN,
    peer: "milan-8d1f03",
    consumer: { name: "rome-4b2a9e", clusterId: "rome-4b2a9e", api: consumerApi },
    provider: w.provider ? { name: "milan-8d1f03", api: providerApi } : null,
    localPods: LOCAL,
    offloadedPods: OFF,
    addressIn: () => null,
    create: (obj) => {
      created = obj;
      return Promise.resolve(ok(obj));
    },
    exec,
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    progress: () => {},
    now: c.now,
    sleep: (ms) => {
      c.advance(ms);
      return Promise.resolve();
    },
  };
  return { io, execs, polls: () => polls, created: () => created };
}

Deno.test("measureService: healthy — slices polled until complete, DNS on both sides, every backend answered", async () => {
  const w = world({ slicesAfter: 2, provider: true });
  const { outcome, measurement } = await measureService(w.io);
  assert.equal(outcome.status, "pass", `${outcome.summary}\n${outcome.evidence?.join("\n")}`);
  assert.equal(w.created()?.kind, "Service");
  assert.equal(w.polls(), 3, "polled until the consumer's slices listed everything, no longer");
  assert.equal(measurement!.remoteNamespace, RNS);
  assert.deepEqual(measurement!.dns.map((d) => d.name), [serviceFqdn(NS), serviceFqdn(RNS)]);
  assert.deepEqual(measurement!.sweeps.map((s) => [s.target, s.requests, s.stop]), [
    ["10.96.0.10", 4, "all-answered"],
    ["10.112.0.20", 4, "all-answered"],
  ]);
  // One sweep exec per side: round robin answers all four in the first batch of four.
  assert.equal(w.execs.filter((e) => e[1] === "sh").length, 2);
});

Deno.test("measureService: a backend that never answers is named; the sweep stops at backends × 10", async () => {
  const w = world({ slicesAfter: 0, provider: false, dead: ["ff-probe-milan-8d1f03-1"] });
  const { outcome, measurement } = await measureService(w.io);
  assert.equal(outcome.status, "fail");
  assert.match(
    outcome.summary,
    /^backend ff-probe-milan-8d1f03-1 \(provider, node milan-8d1f03, 10\.71\.2\.7\) never answered: 40 request/,
  );
  assert.ok(measurement!.sweeps.every((s) => s.requests === 40 && s.stop === "bound"));
  assert.ok(outcome.evidence!.some((e) => /provider side not inspected \(no --remote-kubeconfig\)/.test(e)));
});

Deno.test("measureService: the provider's reflected EndpointSlice missing is named, its local backends silent there", async () => {
  const w = world({ slicesAfter: 0, provider: true, noReflectedSlice: true });
  const { outcome, measurement } = await measureService(w.io);
  assert.equal(outcome.status, "fail");
  assert.match(outcome.summary, /^reflected EndpointSlice of ff-probe .* missing in milan-8d1f03 \(provider/);
  assert.match(outcome.summary, /still incomplete after 8 s/);
  const remoteSweep = measurement!.sweeps.find((s) => s.side === "remote")!;
  assert.deepEqual(Object.keys(remoteSweep.answered).sort(), OFF.map((p) => p.name));
  assert.ok(outcome.evidence!.some((e) => /backend ff-probe-rome-worker-1 .* never answered/.test(e)));
});

Deno.test("measureService: DNS failing on the provider names that side and still sweeps its ClusterIP", async () => {
  const w = world({ slicesAfter: 0, provider: true, nxdomain: [serviceFqdn(RNS)] });
  const { outcome, measurement } = await measureService(w.io);
  assert.equal(outcome.status, "fail");
  assert.match(
    outcome.summary,
    /^DNS on the provider side: ff-probe\.flyingfish-probe-abcd1234-rome-4b2a9e\.svc\.cluster\.local does not resolve/,
  );
  assert.equal(measurement!.sweeps.length, 2);
});

Deno.test("measureService: no offloaded pod or a refused Service → unknown with the reason, nothing swept", async () => {
  let w = world({ slicesAfter: 0, provider: false });
  w.io.offloadedPods = [];
  let out = await measureService(w.io);
  assert.equal(out.outcome.status, "unknown");
  assert.match(out.outcome.summary, /no probe pod offloaded to milan-8d1f03/);
  assert.equal(w.execs.length, 0);

  w = world({ slicesAfter: 0, provider: false });
  w.io.create = () =>
    Promise.resolve({ ok: false, status: 403, message: 'services is forbidden: User "u" cannot create' });
  out = await measureService(w.io);
  assert.equal(out.outcome.status, "unknown");
  assert.match(
    out.outcome.summary,
    /could not create Service flyingfish-probe-abcd1234\/ff-probe on rome-4b2a9e: services is forbidden/,
  );
  assert.equal(w.execs.length, 0);
});

Deno.test("measureService: interrupted while waiting for the slices → unknown, no DNS or sweep", async () => {
  const w = world({ slicesAfter: 5, provider: false });
  const ac = new AbortController();
  w.io.signal = ac.signal;
  const create = w.io.create;
  w.io.create = (obj) => {
    ac.abort();
    return create(obj);
  };
  const out = await measureService(w.io);
  assert.equal(out.outcome.status, "unknown");
  assert.match(out.outcome.summary, /^interrupted while waiting for the EndpointSlices/);
  assert.equal(w.polls(), 1);
  assert.equal(w.execs.length, 0);
});
