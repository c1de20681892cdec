import { fixText } from "../../report/remediation.ts";
import { fixAsReported } from "../../tests/support/remediation_view.ts";
import assert from "node:assert/strict";
import {
  clientIpOf,
  judgeUdp,
  parseDialAnswer,
  parseSeries,
  seriesStats,
  UDP_LOSS_FAIL_PCT,
  UDP_LOSS_WARN_ABOVE_PCT,
  UDP_SERIES_COUNT,
  type UdpMeasurement,
} from "./judge.ts";

const NONCE = "k3x9a0zq";

/** One line of the series as the script prints it (netexec JSON, then curl's time_total). */
function answered(seq: number, echoed = seq, seconds = 0.0042): string {
  return `${seq} {"responses":["ff-${NONCE}-${echoed}"],"errors":[]} ${seconds}`;
}
/** A datagram netexec got no answer for. */
function timedOut(seq: number): string {
  return `${seq} {"responses":[],"errors":["reading from udp connection failed. err:'read udp 10.244.1.5:41234->10.71.2.7:8081: i/o timeout'"]} 2.003`;
}
/** curl itself failed (`|| echo ' -1'`). */
function curlFailed(seq: number): string {
  return `${seq}  2.001021\n -1`;
}

function series(lines: string[]): string {
  return lines.join("\n") + "\n";
}

function measurement(
  stdout: string,
  seen: string | null = "10.68.1.5:52114",
  expected = "10.68.1.5",
): UdpMeasurement {
  return {
    from: { cluster: "rome", pod: "ff-probe-rome-worker-1", node: "rome-worker-1" },
    to: {
      cluster: "milan",
      pod: "ff-probe-milan-worker-1",
      node: "milan-worker-1",
    },
    address: { ip: "10.71.2.7", how: "10.244.2.7 remapped" },
    nonce: NONCE,
    count: 20,
    series: { ok: true, lines: parseSeries(stdout) },
    source: {
      seen: clientIpOf(seen === null ? null : parseDialAnswer(`{"responses":["${seen}"],"errors":[]}`)),
      error: seen === null ? "no answer" : null,
      expected: { ip: expected, how: "10.244.1.5 remapped with milan's Configuration" },
    },
    liqoNamespace: "liqo",
  };
}

const all = (f: (seq: number) => string, n = 20) => Array.from({ length: n }, (_, i) => f(i + 1));

Deno.test("udp: thresholds are exported for explain", () => {
  assert.equal(UDP_SERIES_COUNT, 20);
  assert.equal(UDP_LOSS_WARN_ABOVE_PCT, 0);
  assert.equal(UDP_LOSS_FAIL_PCT, 50);
});

Deno.test("udp: parses the dial answer and the series lines, incl. a JSON that ends with a newline", () => {
  assert.deepEqual(parseDialAnswer('{"responses":["a"],"errors":[]}'), { responses: ["a"], errors: [] });
  assert.deepEqual(parseDialAnswer('{"responses":null,"errors":["x"]}'), { responses: [], errors: ["x"] });
  assert.equal(parseDialAnswer("curl: (7) Failed to connect"), null);
  const lines = parseSeries(
    `1 {"responses":["ff-${NONCE}-1"],"errors":[]}\n 0.004512\n${curlFailed(2)}\n${answered(3)}\n`,
  );
  assert.deepEqual(lines.map((l) => [l.seq, l.answer?.responses ?? null, l.seconds]), [
    [1, [`ff-${NONCE}-1`], 0.004512],
    [2, null, null],
    [3, [`ff-${NONCE}-3`], 0.0042],
  ]);
});

Deno.test("udp: a clean series passes with RTT and the expected source", () => {
  const o = judgeUdp(measurement(series(all((s) => answered(s, s, 0.002 + s / 10000)))));
  assert.equal(o.status, "pass");
  assert.match(o.summary, /no UDP loss, no duplicates, source address as expected/);
  assert.ok(o.evidence!.includes("20/20 datagrams answered (0% loss), nonce ff-k3x9a0zq"));
  assert.ok(o.evidence!.some((l) => /RTT min\/avg\/max 2.1\/3.1\/4 ms/.test(l)));
  assert.ok(o.evidence!.some((l) => /clientip: the far side saw 10.68.1.5 = expected 10.68.1.5/.test(l)));
});

Deno.test("udp: loss above 0 % warns, from 50 % fails, 100 % is the tunnel dropping UDP", () => {
  const one = judgeUdp(measurement(series(all((s) => s === 7 ? timedOut(s) : answered(s)))));
  assert.equal(one.status, "warn");
  assert.match(one.summary, /5% UDP loss \(1\/20\)/);
  assert.ok(one.evidence!.some((l) => /first loss: reading from udp connection failed/.test(l)));

  const half = judgeUdp(measurement(series(all((s) => s % 2 ? curlFailed(s) : answered(s)))));
  assert.equal(half.status, "fail");
  assert.match(half.summary, /50% UDP loss \(10\/20\)/);

  const none = judgeUdp(measurement(series(all(timedOut))));
  assert.equal(none.status, "fail");
  assert.match(none.summary, /the tunnel drops UDP: 0\/20 datagrams answered/);
  assert.match(fixText(none.remediation), /flyingfish check --only gateway,tunnel/);
});

Deno.test("udp: duplicates and late replies (another datagram's sequence number) warn", () => {
  const stats = seriesStats(
    parseSeries(series([answered(1), answered(2, 1), answered(3), timedOut(4), answered(5, 4), answered(6)])),
    NONCE,
    6,
  );
  assert.deepEqual([stats.answered, stats.duplicates, stats.late, stats.lost], [3, 1, 1, 3]);

  const dup = judgeUdp(
    measurement(
      series(
        all((s) =>
          s === 5 ? `5 {"responses":["ff-${NONCE}-5","ff-${NONCE}-5"],"errors":[]} 0.003` : answered(s)
        ),
      ),
    ),
  );
  assert.equal(dup.status, "warn");
  assert.match(dup.summary, /1 duplicate and 0 late UDP replies/);
  // Answers of someone else's nonce are not ours: counted apart, never as answered.
  const foreign = seriesStats(parseSeries(answered(1).replace(NONCE, "zzzzzzzz")), NONCE, 1);
  assert.deepEqual([foreign.answered, foreign.foreign], [0, 1]);
});

Deno.test("udp: the far side seeing another source is a NAT finding", () => {
  const o = judgeUdp(measurement(series(all((s) => answered(s))), "10.80.0.1:40111"));
  assert.equal(o.status, "fail");
  assert.equal(o.summary, "NAT: far side saw 10.80.0.1, expected 10.68.1.5");
  assert.match(
    fixAsReported(o.remediation, { cluster: "rome", peer: "milan" }, ["rome", "milan"]),
    /kubectl --context milan get configurations.networking.liqo.io -A -o yaml/,
  );
  // Loss and NAT together: the worst first, the other kept.
  const both = judgeUdp(measurement(series(all((s) => s === 1 ? timedOut(s) : answered(s))), "10.80.0.1:1"));
  assert.match(both.summary, /^NAT: .*; 5% UDP loss/);
});

Deno.test("udp: an unknown expected source or a series that could not run is not a pass or a fail", () => {
  const m = measurement(series(all((s) => answered(s))));
  m.source = { seen: "10.68.1.5", error: null, expected: { ip: null, reason: "no Configuration" } };
  const o = judgeUdp(m);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /the source address could not be checked/);
  assert.ok(o.evidence!.some((l) => /expected source unknown: no Configuration/.test(l)));

  const broken = measurement("");
  broken.series = { ok: false, reason: "pods/exec forbidden" };
  assert.equal(judgeUdp(broken).status, "unknown");

  const noAddr = measurement("");
  noAddr.address = { ip: null, reason: "no Configuration labelled liqo.io/remote-cluster-id=milan" };
  const u = judgeUdp(noAddr);
  assert.equal(u.status, "unknown");
  assert.match(u.summary, /no address to dial/);
});

Deno.test("udp: clientip answers are read as ip:port", () => {
  assert.equal(clientIpOf({ responses: ["10.68.1.5:52114"], errors: [] }), "10.68.1.5");
  assert.equal(clientIpOf({ responses: [], errors: ["timeout"] }), null);
  assert.equal(clientIpOf(null), null);
});
