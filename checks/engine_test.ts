import { fix } from "./remediation.ts";
import assert from "node:assert/strict";
import { type EngineInput, runEngine, validateCatalog } from "./engine.ts";
import { diagnosisOf as diagnose } from "./diagnosis.ts";
import type { CheckDef, Outcome, PeerView } from "./types.ts";
import { inventoryOf, scriptedProbes, TEST_OPTIONS, viewOf } from "../tests/support/fixtures.ts";
import { PASSIVE_CHECKS as CATALOG } from "./catalog.ts";
import { Inventory } from "../kube/inventory.ts";
import { Objects } from "../liqo/views/mod.ts";

function def(
  id: string,
  layer: CheckDef["layer"],
  run: () => Outcome | Promise<Outcome>,
  extra: Partial<CheckDef> = {},
): CheckDef {
  return {
    id,
    title: id,
    layer,
    needs: [],
    scope: "single",
    perPeer: false,
    reads: [],
    explain: { reads: "", decides: "", fixes: "" },
    hops: [],
    run,
    ...extra,
  } as CheckDef;
}

const pass = (): Outcome => ({ status: "pass", summary: "ok" });
const fail = (): Outcome => ({ status: "fail", summary: "broken", remediation: fix("fix it") });

function input(catalog: CheckDef[], peers: PeerView[] = [], over: Partial<EngineInput> = {}): EngineInput {
  const view = viewOf(inventoryOf([]), new Date(), "ctx");
  return {
    catalog,
    local: { view, peers },
    probes: scriptedProbes(),
    options: { ...TEST_OPTIONS, checkTimeoutMs: 200 },
    ...over,
  };
}

const peer = (id: string): PeerView => ({
  clusterId: id,
  foreignCluster: { metadata: { name: id } },
  tenantNamespace: null,
});

Deno.test("the shipped catalog is valid", () => {
  assert.deepEqual(validateCatalog(CATALOG), []);
});

Deno.test("catalog mistakes are caught: duplicate, unknown dependency, cycle, scope", () => {
  const errs = validateCatalog([
    def("A-1", "env", pass),
    def("A-1", "env", pass),
    def("B-1", "env", pass, { needs: ["NOPE"] }),
    def("C-1", "env", pass, { needs: ["C-2"] }),
    def("C-2", "env", pass, { needs: ["C-1"] }),
    def("D-1", "env", pass, { perPeer: true }),
    def("D-2", "env", pass, { needs: ["D-1"] }),
    def("E-1", "tunnel", pass),
    def("E-2", "env", pass, { needs: ["E-1"] }),
  ]);
  assert.ok(errs.some((e) => /duplicate check ID A-1/.test(e)), errs.join("\n"));
  assert.ok(errs.some((e) => /B-1 needs unknown check NOPE/.test(e)));
  assert.ok(errs.some((e) => /cycle: C-1 → C-2 → C-1/.test(e)));
  assert.ok(errs.some((e) => /D-2 is cluster-wide but needs per-peer check D-1/.test(e)));
  assert.ok(errs.some((e) => /E-2 \(env\) needs E-1 from a later layer/.test(e)));
});

Deno.test("a failed dependency skips its dependants with blockedBy, transitively", async () => {
  const out = await runEngine(input([
    def("ENV-X", "env", fail),
    def("GW-X", "gateway", pass, { needs: ["ENV-X"] }),
    def("TUN-X", "tunnel", pass, { needs: ["GW-X"] }),
  ]));
  const by = Object.fromEntries(out.results.map((r) => [r.id, r]));
  assert.equal(by["GW-X"].status, "skip");
  assert.equal(by["GW-X"].blockedBy, "ENV-X");
  assert.equal(by["TUN-X"].blockedBy, "ENV-X");
  assert.equal(out.diagnosis?.id, "ENV-X");
  assert.equal(out.exitCode, 2);
});

Deno.test("the diagnosis is the first failure in layer order, not in completion order", async () => {
  const out = await runEngine(input([
    def("TUN-X", "tunnel", fail),
    def("GW-X", "gateway", async () => {
      await new Promise((r) => setTimeout(r, 30));
      return fail();
    }),
  ]));
  assert.equal(out.diagnosis?.id, "GW-X");
  assert.deepEqual(out.results.map((r) => r.id), ["GW-X", "TUN-X"]);
  assert.equal(diagnose([]), null);
});

Deno.test("timeouts and thrown errors become unknown with the reason; exit 1 without failures", async () => {
  const out = await runEngine(input([
    def("ENV-T", "env", () => new Promise<Outcome>(() => {})),
    def("ENV-E", "env", () => {
      throw new Error("boom");
    }),
  ]));
  const by = Object.fromEntries(out.results.map((r) => [r.id, r]));
  assert.equal(by["ENV-T"].status, "unknown");
  assert.match(by["ENV-T"].summary, /timed out/);
  assert.equal(by["ENV-E"].status, "unknown");
  assert.match(by["ENV-E"].summary, /boom/);
  assert.equal(out.exitCode, 1);
});

Deno.test("a forbidden input kind makes the check unknown without running it", async () => {
  let ran = false;
  const view = viewOf(inventoryOf([], { secrets: { reason: "forbidden", message: "secrets is forbidden" } }));
  const out = await runEngine(input(
    [def("TUN-S", "tunnel", () => {
      ran = true;
      return pass();
    }, { reads: ["secrets"] })],
    [],
    { local: { view, peers: [] } },
  ));
  assert.equal(ran, false);
  assert.equal(out.results[0].status, "unknown");
  assert.match(out.results[0].summary, /^forbidden: secrets/);
});

Deno.test("per-peer checks run once per peer and block only their own peer", async () => {
  const out = await runEngine(input(
    [
      def("GW-P", "gateway", () => pass(), { perPeer: true }),
      def("TUN-P", "tunnel", pass, { perPeer: true, needs: ["GW-P"] }),
    ].map((d) =>
      d.id === "GW-P" ? { ...d, run: (ctx) => (ctx.peer?.clusterId === "bad" ? fail() : pass()) } : d
    ),
    [
      peer("good"),
      peer("bad"),
    ],
  ));
  const tun = out.results.filter((r) => r.id === "TUN-P");
  assert.equal(tun.length, 2);
  assert.equal(tun.find((r) => r.peer === "good")?.status, "pass");
  assert.equal(tun.find((r) => r.peer === "bad")?.status, "skip");
  assert.equal(out.diagnosis?.peer, "bad");
});

Deno.test("dual checks are skipped in single mode with the reason", async () => {
  const out = await runEngine(
    input([def("ENV-D", "env", pass, { scope: "dual", perPeer: true })], [peer("p")]),
  );
  assert.equal(out.results[0].status, "skip");
  assert.equal(out.results[0].summary, "needs --remote-kubeconfig");
  assert.equal(out.exitCode, 0);
});

Deno.test("an unknown dependency blocks like a failure, saying so; runsIfUnknown opts out", async () => {
  const unknown = (): Outcome => ({ status: "unknown", summary: "could not read" });
  const out = await runEngine(input([
    def("ENV-U", "env", unknown),
    def("GW-U", "gateway", pass, { needs: ["ENV-U"] }),
    def("TUN-U", "tunnel", pass, { needs: ["GW-U"] }),
    def("GW-R", "gateway", pass, { needs: ["ENV-U"], runsIfUnknown: ["ENV-U"] }),
  ]));
  const by = Object.fromEntries(out.results.map((r) => [r.id, r]));
  assert.equal(by["GW-U"].status, "skip");
  assert.equal(by["GW-U"].blockedBy, "ENV-U");
  assert.equal(by["GW-U"].skipKind, "blocked");
  assert.match(by["GW-U"].summary, /^blocked by ENV-U \(unknown\)/);
  assert.match(
    by["TUN-U"].summary,
    /^blocked by ENV-U \(unknown\)/,
    "the unknown root is carried transitively",
  );
  assert.equal(by["GW-R"].status, "pass");
  assert.equal(out.exitCode, 1);
  assert.equal(out.diagnosis, null);
});

Deno.test("a failure is named before an unknown when both block", async () => {
  const unknown = (): Outcome => ({ status: "unknown", summary: "?" });
  const out = await runEngine(input([
    def("ENV-U", "env", unknown),
    def("ENV-F", "env", fail),
    def("GW-X", "gateway", pass, { needs: ["ENV-U", "ENV-F"] }),
  ]));
  const gw = out.results.find((r) => r.id === "GW-X")!;
  assert.equal(gw.blockedBy, "ENV-F");
  assert.match(gw.summary, /^blocked by ENV-F( |$)/);
});

Deno.test("a required kind with a malformed object makes the check unknown, naming the object", async () => {
  const bad = {
    kind: "Pod",
    apiVersion: "v1",
    metadata: { name: "p1", namespace: "ns" },
    spec: { containers: "x" },
  };
  const view = viewOf(inventoryOf([bad as never]), new Date(), "ctx");
  let ran = false;
  const out = await runEngine(input(
    [
      def("ENV-P", "env", () => (ran = true, pass()), { reads: ["pods"] }),
      def("ENV-Q", "env", pass, { reads: ["nodes"] }),
    ],
    [],
    { local: { view, peers: [] } },
  ));
  const p = out.results.find((r) => r.id === "ENV-P")!;
  assert.equal(p.status, "unknown");
  assert.match(p.summary, /malformed pods on ctx: ns\/p1 — spec\.containers/);
  assert.equal(ran, false);
  assert.equal(out.results.find((r) => r.id === "ENV-Q")!.status, "pass");
});

Deno.test("an input read only after retries says so in the evidence; the result stands", async () => {
  const source = {
    endpoint: { context: "ctx", server: "https://127.0.0.1:1" },
    now: () => new Date(),
    isSnapshot: false,
    list: () => Promise.resolve({ ok: true as const, items: [], retries: 2 }),
    discovery: () => Promise.resolve({ ok: true as const, groups: [] }),
    exec: () => Promise.resolve({ ok: false as const, reason: "error" as const, message: "no" }),
    close: () => Promise.resolve(),
  };
  const inv = new Objects(await Inventory.load(source, ["pods"], false));
  const view = viewOf(inv, new Date(), "ctx");
  const out = await runEngine(input([def("ENV-R", "env", pass, { reads: ["pods"] })], [], {
    local: { view, peers: [] },
  }));
  const r = out.results[0];
  assert.equal(r.status, "pass");
  assert.ok(
    r.evidence.some((e) => /read pods on ctx after 2 retried request/.test(e)),
    r.evidence.join("\n"),
  );
});

Deno.test("an unreadable optional kind taken as 'nothing there' makes the check unknown, naming the read", async () => {
  const forbidden = { identities: { reason: "forbidden" as const, message: "RBAC: no list" } };
  const view = viewOf(inventoryOf([], forbidden), new Date(), "ctx");
  // The forgetful shape: `?? []` turns the refusal into "no Identity", and the check passes.
  const forgetful = def("A-1", "env", () => ({ status: "pass", summary: "no Identity, nothing to check" }), {
    optionalReads: ["identities"],
  });
  const forgetfulRun = forgetful.run;
  const check = {
    ...forgetful,
    run: (ctx: Parameters<CheckDef["run"]>[0]) => {
      const n = (ctx.cluster.inv.tryItems("identities") ?? []).length;
      return n === 0 ? forgetfulRun(ctx) : { status: "fail" as const, summary: "?" };
    },
  } as CheckDef;
  // The careful shape: it asks, and judges on what it has, saying why.
  const careful = def("A-2", "env", () => ({ status: "fail", summary: "" }), {
    optionalReads: ["identities"],
  });
  const carefulCheck = {
    ...careful,
    run: (ctx: Parameters<CheckDef["run"]>[0]): Outcome => {
      const read = ctx.cluster.inv.readable("identities");
      return read.ok
        ? { status: "pass", summary: `${read.items.length} identities` }
        : { status: "warn", summary: "judged without identities", evidence: [read.reason] };
    },
  } as CheckDef;
  const out = await runEngine(input([check, carefulCheck], [], { local: { view, peers: [] } }));
  const [a, b] = out.results;
  assert.equal(a.status, "unknown");
  assert.equal(a.summary, "forbidden: identities on ctx — RBAC: no list");
  assert.ok(a.evidence.some((e) => e.includes("would say: pass — no Identity")), a.evidence.join("\n"));
  assert.deepEqual(a.remediation, []);
  assert.equal(b.status, "warn");
  assert.deepEqual(b.evidence, ["forbidden: identities — RBAC: no list"]);
  // Readable and empty: judged as before.
  const empty = await runEngine(input([check, carefulCheck]));
  assert.deepEqual(empty.results.map((r) => r.status), ["pass", "pass"]);
});

Deno.test("a locator whose kind is unreadable (the Liqo namespace from deployments) makes its user unknown", async () => {
  const view = viewOf(
    inventoryOf([], { deployments: { reason: "error", message: "HTTP 500" } }),
    new Date(),
    "ctx",
  );
  assert.equal(view.liqoNamespace, null);
  const usesNs = def("A-1", "env", pass);
  const check = {
    ...usesNs,
    run: (ctx: Parameters<CheckDef["run"]>[0]): Outcome =>
      ctx.cluster.liqoNamespace === null
        ? { status: "skip", summary: "Liqo not installed" }
        : { status: "pass", summary: "ok" },
  } as CheckDef;
  const out = await runEngine(input([check], [], { local: { view, peers: [] } }));
  assert.equal(out.results[0].status, "unknown");
  assert.match(out.results[0].summary, /^cannot read: deployments on ctx — HTTP 500/);
  // With the Deployments readable and no Liqo there, the skip stands.
  assert.equal((await runEngine(input([check]))).results[0].status, "skip");
});

Deno.test("a peer found without its ForeignCluster (unreadable) has every check unknown, naming the read", async () => {
  const stale: PeerView = {
    ...peer("paris"),
    unlocated: "forbidden: foreignclusters on ctx — no (peer found only by labels)",
  };
  const out = await runEngine(input([def("G-1", "gateway", fail, { perPeer: true })], [stale]));
  assert.equal(out.results[0].status, "unknown");
  assert.match(out.results[0].summary, /^forbidden: foreignclusters on ctx/);
  assert.equal(out.exitCode, 1);
});

Deno.test("a per-peer check reads the same peer's per-peer input", async () => {
  const out = await runEngine(input(
    [
      def("IPAM-P", "ipam", pass, { perPeer: true }),
      def("FAB-P", "fabric", pass, { perPeer: true, inputs: ["IPAM-P"] }),
    ].map((d) => {
      if (d.id === "IPAM-P") return { ...d, run: (ctx) => (ctx.peer?.clusterId === "bad" ? fail() : pass()) };
      return {
        ...d,
        run: (ctx) => {
          const r = ctx.input("IPAM-P")?.result;
          return { status: "pass", summary: `input of ${r?.peer}: ${r?.status}` };
        },
      };
    }),
    [peer("good"), peer("bad")],
  ));
  const fab = out.results.filter((r) => r.id === "FAB-P");
  assert.equal(fab.find((r) => r.peer === "good")?.summary, "input of good: pass");
  assert.equal(fab.find((r) => r.peer === "bad")?.summary, "input of bad: fail");
});

Deno.test("thousands of instances: starts are paced, waits are not — every instance of a run may wait at once", async () => {
  // Each instance waits until all of them have started: a cap on concurrent instances would never
  // let the barrier open (the run would time out every check); pacing only spreads the starts.
  const peers = Array.from({ length: 1_200 }, (_, i) => peer(`p${i}`));
  let started = 0;
  let open!: () => void;
  const barrier = new Promise<void>((r) => (open = r));
  const waiter = def("W-1", "env", async () => {
    if (++started === peers.length) open();
    await barrier;
    return pass();
  }, { perPeer: true });
  const blocked = def("W-2", "env", pass, { perPeer: true, needs: ["W-1"] });
  const out = await runEngine(
    input([waiter, blocked], peers, { options: { ...TEST_OPTIONS, checkTimeoutMs: 30_000 } }),
  );
  assert.equal(started, peers.length);
  assert.equal(out.results.length, 2 * peers.length);
  assert.ok(out.results.every((r) => r.status === "pass"), "no instance timed out waiting for the others");
  // Ordered as always: catalog order, then peer.
  assert.deepEqual(out.results.slice(0, 2).map((r) => r.peer), ["p0", "p1"]);
});
