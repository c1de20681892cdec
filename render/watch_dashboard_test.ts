import assert from "node:assert/strict";
import { LAYERS } from "../report/model.ts";
import type { CellStatus, TransitionEvent, WatchDashboardModel } from "../report/watch_model.ts";
import { clockTime, renderDashboard, shortDuration } from "./watch_dashboard.ts";
import { displayWidth, stripAnsi } from "./wrap.ts";

const NOW = "2026-12-01T10:05:00Z";

function cells(
  over: Partial<Record<(typeof LAYERS)[number], CellStatus>>,
): Record<(typeof LAYERS)[number], CellStatus> {
  return { ...Object.fromEntries(LAYERS.map((l) => [l, "pass"])), ...over } as Record<
    (typeof LAYERS)[number],
    CellStatus
  >;
}

function transition(i: number): TransitionEvent {
  return {
    type: "transition",
    time: new Date(Date.parse(NOW) - (10 - i) * 30_000).toISOString(),
    cluster: "milan-8d1f03",
    peer: "rome-4b2a9e",
    id: "TUN-01",
    layer: "tunnel",
    from: i % 2 ? "pass" : "fail",
    to: i % 2 ? "fail" : "pass",
    summary: "Connection gw-rome-4b2a9e " + (i % 2 ? "Connecting: no handshake for 3m12s" : "Connected"),
  };
}

function model(over: Partial<WatchDashboardModel> = {}): WatchDashboardModel {
  return {
    clusters: [{ name: "milan-8d1f03", context: "milan", server: "https://milan.example:6443" }],
    intervalMs: 30_000,
    round: 12,
    lastRoundAt: NOW,
    lastRoundMs: 1400,
    summary: { pass: 21, warn: 1, fail: 1, skip: 13, unknown: 0, total: 36 },
    exitCode: 2,
    rows: [
      {
        cluster: "milan-8d1f03",
        peer: "rome-4b2a9e",
        cells: cells({ gateway: "fail", tunnel: "skip", controlplane: "warn" }),
        firstBroken: {
          id: "GW-02",
          layer: "gateway",
          status: "fail",
          summary:
            "LoadBalancer Service gw-rome-4b2a9e stuck <pending>: no external address for the gateway server",
          since: "2026-12-01T10:01:33Z",
          forMs: 207_000,
        },
      },
      {
        cluster: "milan-8d1f03",
        peer: "paris-77c0aa",
        cells: cells({ reflection: "none" }),
        firstBroken: null,
      },
    ],
    transitions: Array.from({ length: 10 }, (_, i) => transition(i)),
    flapping: [{
      type: "flapping",
      time: NOW,
      cluster: "milan-8d1f03",
      peer: "rome-4b2a9e",
      id: "TUN-01",
      layer: "tunnel",
      changes: 4,
      windowMs: 600_000,
      times: ["2026-12-01T10:01:00Z", "2026-12-01T10:02:00Z", "2026-12-01T10:03:00Z", "2026-12-01T10:04:00Z"],
    }],
    error: null,
    nextInMs: 12_300,
    now: NOW,
    until: null,
    ended: null,
    ...over,
  };
}

Deno.test("dashboard: rows per peer, a mark per layer, the first broken link with since/for, transitions", () => {
  const lines = renderDashboard(model(), { color: false, width: 100 });
  const text = lines.join("\n");
  assert.match(text, /flyingfish watch · milan-8d1f03 \(milan\) · every 30s/);
  assert.match(text, /round 12 at \d\d:\d\d:\d\d · next check in 13s · q quits/);
  const header = lines.find((l) => l.includes("PEER"))!;
  assert.match(header, /PEER +ENV CP +GW +TUN FAB IPAM CNI REF +FIRST BROKEN LINK/);
  const rome = lines.find((l) => l.startsWith(" rome-4b2a9e"))!;
  assert.match(rome, /✓ +! +✗ +- +✓ +✓ +✓ +✓ +✗ GW-02 since \d\d:\d\d:\d\d \(for 3m27s\)/);
  // Marks sit under their column headings.
  for (const [mark, col] of [["!", "CP"], ["✗", "GW"], ["-", "TUN"]] as const) {
    assert.equal(rome.indexOf(mark, 14), header.indexOf(` ${col} `) + 1, `${mark} under ${col}`);
  }
  assert.match(text, /^ {5}LoadBalancer Service gw-rome-4b2a9e stuck <pending>/m);
  assert.match(lines.find((l) => l.startsWith(" paris-77c0aa"))!, /✓ {3,}none$/);
  assert.match(text, /FLAPPING\n ! TUN-01 rome-4b2a9e: 4 changes in 10m00s \(\d\d:\d\d:\d\d, /);
  const shown = lines.slice(lines.indexOf(" LAST TRANSITIONS") + 1).filter((l) =>
    /TUN-01 {2}(pass|fail)/.test(l)
  );
  assert.equal(shown.length, 6, "the 6 latest transitions");
  assert.match(shown[4], /rome-4b2a9e {2}TUN-01 {2}fail → pass {2}Connection gw-rome-4b2a9e Connected$/);
  assert.match(shown[5], /rome-4b2a9e {2}TUN-01 {2}pass → fail {2}Connection gw-rome-4b2a9e Connecting: no/);
  assert.match(
    lines[lines.length - 1],
    /^ 21 passed ⋅ 1 warning ⋅ 1 failed ⋅ 13 skipped ⋅ 0 unknown \(1\.4s\)$/,
  );
});

Deno.test("dashboard: every line fits the width, the frame fits the height (older transitions go first)", () => {
  for (const width of [40, 60, 80, 120]) {
    for (const color of [false, true]) {
      const lines = renderDashboard(model(), { color, width });
      for (const l of lines) assert.ok(displayWidth(stripAnsi(l)) <= width, `${width}: ${l}`);
    }
  }
  const full = renderDashboard(model(), { color: false, width: 100 });
  const short = renderDashboard(model(), { color: false, width: 100, height: full.length - 2 });
  assert.ok(short.length <= full.length - 3, `${short.length} lines`);
  assert.match(short[short.length - 1], /21 passed/, "the count line stays");
  assert.match(short.join("\n"), /LAST TRANSITIONS/);
});

Deno.test("dashboard: before the first round, an error, and the last frame", () => {
  const first = renderDashboard(
    model({
      round: 0,
      lastRoundAt: null,
      rows: [],
      transitions: [],
      flapping: [],
      summary: null,
      nextInMs: null,
    }),
    { color: false, width: 80 },
  ).join("\n");
  assert.match(first, /first round · checking…/);
  assert.match(first, /\(no round yet\)/);
  const failed = renderDashboard(model({ error: "cannot reach the API server" }), {
    color: false,
    width: 80,
  });
  assert.ok(failed.includes(" ✗ last round failed: cannot reach the API server"));
  const done = renderDashboard(model({ ended: "healthy", until: "healthy" }), { color: false, width: 80 });
  assert.match(done[1], /round 12 at \d\d:\d\d:\d\d · healthy: done$/);
});

Deno.test("dashboard: short durations and clock times", () => {
  assert.equal(shortDuration(0), "0s");
  assert.equal(shortDuration(59_999), "59s");
  assert.equal(shortDuration(207_000), "3m27s");
  assert.equal(shortDuration(3 * 3600_000 + 5 * 60_000), "3h05m");
  assert.equal(shortDuration(2 * 86400_000 + 4 * 3600_000), "2d4h");
  assert.match(clockTime(NOW), /^\d\d:\d\d:\d\d$/);
});
