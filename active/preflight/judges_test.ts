/**
 * preflight --probe's pure judges: the echo output read into typed outcomes (reply, timeout, ICMP
 * refusal, not run), a direction's verdict (inconclusive is unknown, never blocked), PF-DIR's
 * order of preference and its facts, PF-EXP's LoadBalancer/NodePort readings, PF-MTU's safe MTU
 * per family, PF-API's two vantages.
 */
import assert from "node:assert/strict";
import { goJson } from "../../fakekube/mod.ts";
import { judgeApi, parsePodReach } from "./api/judge.ts";
import { judgeDirection } from "./direction/judge.ts";
import { advertisedAddress, candidatesOf, isPrivate, judgeExposure } from "./exposure/judge.ts";
import type { Candidate, Direction, Exposure } from "./model.ts";
import { bounds, judgeMtu, nextSize } from "./mtu/judge.ts";
import { judgeUdp, parseEcho } from "./udp/judge.ts";

const LB: Candidate = { via: "LoadBalancer", address: "198.51.100.10", port: 51840 };
const NP: Candidate = {
  via: "NodePort",
  address: "203.0.113.21",
  port: 31234,
  node: "w1",
  addressType: "ExternalIP",
};

Deno.test("PF-UDP judge: nonces echoed, i/o timeouts, ICMP refusals and curl's own timeout", () => {
  const ok = (t: string) => goJson({ responses: [t] });
  const to = goJson({
    errors: ["reading from udp connection failed. err:'read udp 10.0.0.1:4->x: i/o timeout'"],
  });
  const refused = goJson({
    errors: ["reading from udp connection failed. err:'read udp a->b: read: connection refused'"],
  });
  const out = [
    `0 1 ${ok("ff-pf-n1-0-1")}`,
    `0 2 ${to}`,
    `0 3 ${ok("ff-pf-n1-0-3")}`,
    `0 ip ${ok("198.51.100.99:40001")}`,
    `1 1 ${refused}`,
    `1 2 ${refused}`,
    `1 3 curl: (28) Operation timed out after 7001 milliseconds with 0 bytes received`,
    `2 1 ${ok("ff-pf-other-2-1")}`,
  ].join("\n");
  const echoes = parseEcho(out, [LB, NP, { ...NP, address: "203.0.113.22" }], "n1", 3);
  assert.deepEqual(echoes.map((e) => [e.outcome, e.replies, e.sent]), [["reply", 2, 3], [
    "icmp-refused",
    0,
    3,
  ], [
    "not-run",
    0,
    1,
  ]]);
  assert.equal(echoes[0].seenSource, "198.51.100.99:40001");
  assert.match(echoes[2].detail ?? "", /unexpected answer/);
});

function dir(
  server: "consumer" | "provider",
  outcome: Direction["outcome"],
  candidates: Direction["candidates"] = [],
): Direction {
  return {
    server,
    client: server === "consumer" ? "provider" : "consumer",
    serverCluster: server === "consumer" ? "rome" : "milan",
    clientCluster: server === "consumer" ? "milan" : "rome",
    clientNode: "w1",
    outcome,
    candidates,
  };
}
const echo = (candidate: Candidate, outcome: Direction["outcome"]) => ({
  candidate,
  outcome,
  sent: 3,
  replies: outcome === "reply" ? 3 : 0,
  detail: null,
});

Deno.test("PF-UDP judge: both ways pass, one way warns, inconclusive is unknown, definite silence fails", () => {
  const replyP = dir("provider", "reply", [echo(LB, "reply")]);
  const replyC = dir("consumer", "reply", [echo(LB, "reply")]);
  const timeoutC = dir("consumer", "timeout", [echo(LB, "timeout")]);
  assert.equal(judgeUdp([replyP, replyC], "ns").status, "pass");
  const one = judgeUdp([replyP, timeoutC], "ns");
  assert.equal(one.status, "warn");
  assert.match(one.summary, /must live on the provider side/);
  const admission = {
    ...dir("provider", "rejected-by-admission"),
    reason: "pod x rejected by ResourceQuota",
  };
  assert.equal(judgeUdp([admission, timeoutC], "ns").status, "unknown");
  assert.equal(judgeUdp([dir("provider", "timeout", [echo(LB, "timeout")]), timeoutC], "ns").status, "fail");
  assert.match(
    judgeUdp([dir("provider", "no-address"), timeoutC], "ns").evidence!.join("\n"),
    /no address to send to/,
  );
});

Deno.test("PF-DIR judge: Liqo's default first, then the consumer, NodePort, a port mapping; facts for the verdict", () => {
  const both = judgeDirection([
    dir("provider", "reply", [echo(LB, "reply")]),
    dir("consumer", "reply", [echo(LB, "reply")]),
  ], null);
  assert.deepEqual(both.facts?.preflightPath, {
    serverSide: "provider",
    serviceType: "LoadBalancer",
    port: 51840,
  });
  const consumer = judgeDirection([
    dir("provider", "timeout", [echo(LB, "timeout")]),
    dir("consumer", "reply", [echo(LB, "reply")]),
  ], null);
  assert.equal(consumer.facts?.preflightPath?.serverSide, "consumer");
  assert.match(consumer.summary, /--gw-server-service-location Consumer/);
  const nodePort = judgeDirection(
    [dir("provider", "reply", [echo(LB, "timeout"), echo(NP, "reply")])],
    "provider",
  );
  assert.deepEqual(nodePort.facts?.preflightPath, {
    serverSide: "provider",
    serviceType: "NodePort",
    port: 31234,
  });
  const pm: Candidate = { via: "PortMapping", address: "203.0.113.77", port: 40000, forwardsTo: 31840 };
  const mapped = judgeDirection(
    [dir("provider", "reply", [echo(NP, "timeout"), echo(pm, "reply")])],
    "provider",
  );
  assert.deepEqual(mapped.facts?.preflightPath, {
    serverSide: "provider",
    serviceType: "NodePort",
    port: 31840,
    clientAddress: "203.0.113.77",
    clientPort: 40000,
  });
  const none = judgeDirection([
    dir("provider", "timeout", [echo(LB, "timeout")]),
    dir("consumer", "icmp-refused", [echo(NP, "icmp-refused")]),
  ], null);
  assert.equal(none.status, "fail");
  assert.match(
    none.summary,
    /open UDP 198\.51\.100\.10:51840 \(LoadBalancer\) in provider milan to consumer rome's egress/,
  );
  assert.match(none.summary, /ICMP port unreachable/);
  assert.equal(none.facts?.preflightPath?.serverSide, null);
  assert.equal(judgeDirection([dir("provider", "not-run")], null).status, "unknown");
});

function exposure(extra: Partial<Exposure>): Exposure {
  return {
    side: "provider",
    cluster: "milan",
    serviceType: "LoadBalancer",
    service: "ns/ff-preflight-gw",
    port: 51840,
    nodePort: 31234,
    nodes: [
      {
        name: "w1",
        addresses: [{ type: "InternalIP", address: "10.0.0.5" }, {
          type: "ExternalIP",
          address: "203.0.113.21",
        }],
        ready: true,
        hostsGateway: true,
      },
      {
        name: "cp",
        addresses: [{ type: "InternalIP", address: "10.0.0.4" }],
        ready: true,
        hostsGateway: false,
      },
    ],
    ...extra,
  };
}

Deno.test("PF-EXP judge: an address in time passes, pending fails naming the Service and the wait, private warns", () => {
  const assigned = exposure({
    loadBalancer: { addresses: ["198.51.100.10"], waitedMs: 400, boundMs: 60_000 },
  });
  assert.equal(judgeExposure([assigned], "provider").status, "pass");
  assert.deepEqual(candidatesOf(assigned).map((c) => `${c.via} ${c.address}:${c.port}`), [
    "LoadBalancer 198.51.100.10:51840",
    "NodePort 203.0.113.21:31234",
  ]);
  const pending = judgeExposure([
    exposure({ loadBalancer: { addresses: [], waitedMs: 60_000, boundMs: 60_000 } }),
  ], "provider");
  assert.equal(pending.status, "fail");
  assert.match(
    pending.summary,
    /Service ns\/ff-preflight-gw \(LoadBalancer, UDP 51840\): no LoadBalancer address within 60 s \(pending\); NodePort 31234 on w1 203\.0\.113\.21 \(ExternalIP\)/,
  );
  const privateNp = judgeExposure([exposure({
    serviceType: "NodePort",
    nodes: [{
      name: "w1",
      addresses: [{ type: "InternalIP", address: "10.0.0.5" }],
      ready: true,
      hostsGateway: true,
    }],
  })], "provider");
  assert.equal(privateNp.status, "warn");
  assert.equal(advertisedAddress(exposure({}).nodes[0])?.type, "ExternalIP");
  assert.ok(isPrivate("10.1.2.3") && isPrivate("fd00::1") && !isPrivate("203.0.113.9"));
});

Deno.test("PF-MTU judge: the search, the tunnel's need per family, warn vs fail with the safe --mtu", () => {
  assert.equal(nextSize(1000, 1001), null);
  assert.equal(nextSize(576, 1500), 1038);
  const search = (ok: number, family: "v4" | "v6" = "v4") => ({
    candidate: LB,
    direction: { server: "provider" as const, client: "consumer" as const },
    family,
    tries: [1500, 576, 1038, 1269, 1385, 1442].map((size) => ({ size, ok: size <= ok })),
  });
  assert.deepEqual(bounds(search(1400).tries), { largest: 1385, smallestFailed: 1442 });
  const path = { serverSide: "provider" as const, serviceType: "LoadBalancer" as const, port: 51840 };
  assert.equal(judgeMtu({ ...search(1500), tries: [{ size: 1500, ok: true }] }, 1340, path).status, "pass");
  const warn = judgeMtu(search(1400), 1340, path);
  assert.equal(warn.status, "warn");
  assert.equal(warn.facts?.preflightPath?.mtu, 1325);
  assert.equal(judgeMtu(search(1300), 1340, path).status, "fail");
  const v6 = judgeMtu(search(1400, "v6"), 1340, path);
  assert.equal(v6.facts?.preflightPath?.mtu, 1305);
  assert.equal(judgeMtu(null, 1340, null).status, "unknown");
});

Deno.test("PF-API judge: curl's exit codes; the host reaches it and the cluster cannot", () => {
  assert.deepEqual(parsePodReach(0, "401 10.96.0.1", ""), {
    kind: "ok",
    httpCode: "401",
    remoteIp: "10.96.0.1",
  });
  assert.equal(parsePodReach(28, "000 ", "curl: (28) Connection timed out").kind, "timeout");
  assert.equal(parsePodReach(6, "", "curl: (6) Could not resolve host: x").kind, "dns");
  assert.equal(parsePodReach(35, "", "curl: (35) SSL").kind, "tls");
  const api = { url: "https://teleport.example:443", source: "the provider kubeconfig's server" };
  const pod = { reach: parsePodReach(28, "", "curl: (28) timed out"), pod: "c", node: "w1", cluster: "rome" };
  const hostOnly = judgeApi(api, pod, { outcome: "ok", detail: "", ms: 3 });
  assert.equal(hostOnly.status, "fail");
  assert.match(
    hostOnly.summary,
    /^the host reaches https:\/\/teleport\.example:443, the consumer cluster cannot/,
  );
  assert.match(judgeApi(api, pod, { outcome: "failed", detail: "refused" }).summary, /nor from this host/);
  assert.equal(judgeApi(api, null, null, "client pod rejected").status, "unknown");
});
