import assert from "node:assert/strict";
import { sampleReport } from "../tests/support/report_fixture.ts";
import type { Report, Status } from "../report/model.ts";
import type { FlappingEvent, TransitionEvent } from "../report/watch_model.ts";
import { FlapTracker } from "./flapping.ts";
import { WatchSession } from "./session.ts";

const ROME = "rome-4b2a9e";
const T0 = Date.parse("2026-12-01T10:00:00Z");
const at = (s: number) => new Date(T0 + s * 1000);

/** The sample report with GW-02 of rome set to `status`. */
function withGw02(status: Status): Report {
  const r = sampleReport();
  return {
    ...r,
    results: r.results.map((x) => x.id === "GW-02" && x.peer === ROME ? { ...x, status } : x),
    exitCode: status === "fail" ? 2 : 1,
  };
}

Deno.test("session: a snapshot first, then exactly the transitions and a heartbeat per round", () => {
  const s = new WatchSession({ intervalMs: 30_000 });
  const first = s.observe(withGw02("fail"), at(0));
  assert.deepEqual(first.map((e) => e.type), ["snapshot"]);
  const snap = first[0];
  assert.ok(snap.type === "snapshot");
  assert.equal(snap.results.length, sampleReport().results.length);
  assert.equal(snap.results.find((r) => r.id === "GW-02" && r.peer === ROME)?.status, "fail");

  assert.deepEqual(s.observe(withGw02("fail"), at(30)).map((e) => e.type), ["heartbeat"]);
  const healed = s.observe(withGw02("pass"), at(60));
  assert.deepEqual(healed.map((e) => e.type), ["transition", "heartbeat"]);
  const t = healed[0] as TransitionEvent;
  assert.deepEqual(
    { time: t.time, peer: t.peer, id: t.id, from: t.from, to: t.to, layer: t.layer },
    { time: at(60).toISOString(), peer: ROME, id: "GW-02", from: "fail", to: "pass", layer: "gateway" },
  );
  const hb = healed[1];
  assert.ok(hb.type === "heartbeat");
  assert.equal(hb.transitions, 1);
  assert.equal(hb.round, 3);
});

Deno.test("session: a check that disappears or appears is a transition to or from null", () => {
  const s = new WatchSession({ intervalMs: 1000 });
  const full = sampleReport();
  s.observe(full, at(0));
  const fewer = { ...full, results: full.results.filter((r) => r.id !== "MTU-01") };
  const gone = s.observe(fewer, at(1)).filter((e) => e.type === "transition") as TransitionEvent[];
  assert.deepEqual(gone.map((t) => [t.id, t.from, t.to]), [["MTU-01", "skip", null]]);
  const back = s.observe(full, at(2)).filter((e) => e.type === "transition") as TransitionEvent[];
  assert.deepEqual(back.map((t) => [t.id, t.from, t.to]), [["MTU-01", null, "skip"]]);
});

Deno.test("flapping: more than N changes within the window, reported once, with the times", () => {
  const s = new WatchSession({ intervalMs: 60_000, flapThreshold: 3, flapWindowMs: 10 * 60_000 });
  const seq: Status[] = ["fail", "pass", "fail", "pass", "fail", "pass"];
  const flaps: FlappingEvent[] = [];
  seq.forEach((st, i) => {
    for (const e of s.observe(withGw02(st), at(i * 60))) if (e.type === "flapping") flaps.push(e);
  });
  // Changes at 1, 2, 3, 4, 5 minutes: the 4th change (at 4 min) is the first above 3.
  assert.equal(flaps.length, 1, JSON.stringify(flaps));
  assert.equal(flaps[0].id, "GW-02");
  assert.equal(flaps[0].peer, ROME);
  assert.equal(flaps[0].changes, 4);
  assert.deepEqual(flaps[0].times, [60, 120, 180, 240].map((x) => at(x).toISOString()));
  assert.equal(flaps[0].time, at(240).toISOString());
  assert.equal(s.model(at(300), 1000).flapping.length, 1, "still flapping");
  // Quiet for a window: no longer flapping.
  s.observe(withGw02("pass"), at(300 + 11 * 60));
  assert.equal(s.model(at(300 + 11 * 60), 1000).flapping.length, 0);
});

Deno.test("flapping: changes spread wider than the window are not flapping", () => {
  const f = new FlapTracker(3, 10_000);
  for (let i = 0; i < 10; i++) {
    assert.equal(f.change("k", i * 4_000), null, `change ${i}`);
    f.settle(i * 4_000);
  }
});

Deno.test("session: each peer's first broken link, since when and for how long", () => {
  const s = new WatchSession({ intervalMs: 30_000 });
  s.observe(withGw02("pass"), at(0));
  s.observe(withGw02("fail"), at(30));
  s.observe(withGw02("fail"), at(60));
  const m = s.model(at(75), 15_000);
  const rome = m.rows.find((r) => r.peer === ROME)!;
  assert.equal(rome.firstBroken?.id, "GW-02");
  assert.equal(rome.firstBroken?.since, at(30).toISOString());
  assert.equal(rome.firstBroken?.forMs, 45_000);
  assert.equal(rome.cells.gateway, "fail");
  assert.equal(rome.cells.env, "pass");
  assert.equal(m.nextInMs, 15_000);
  assert.equal(m.round, 3);
  s.observe(withGw02("pass"), at(90));
  assert.equal(s.model(at(90), 0).rows.find((r) => r.peer === ROME)!.firstBroken, null);
});

Deno.test("session: a failed round keeps the statuses and shows the error", () => {
  const s = new WatchSession({ intervalMs: 30_000 });
  s.observe(withGw02("fail"), at(0));
  const e = s.failed("cannot reach the API server", at(30));
  assert.deepEqual(e, {
    type: "error",
    time: at(30).toISOString(),
    round: 2,
    message: "cannot reach the API server",
  });
  const m = s.model(at(31), 29_000);
  assert.equal(m.error, "cannot reach the API server");
  assert.equal(m.rows.length, 2);
  // The next good round compares with the last good one.
  const next = s.observe(withGw02("fail"), at(60));
  assert.deepEqual(next.map((x) => x.type), ["heartbeat"]);
});
