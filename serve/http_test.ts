/**
 * The HTTP endpoints of `flyingfish serve`, in-process on 127.0.0.1 with an ephemeral port: what
 * each serves before and after the first round, GET only, and the round loop's bookkeeping.
 */
import assert from "node:assert/strict";
import { PermissionError } from "../errors.ts";
import { sampleReport } from "../tests/support/report_fixture.ts";
import { renderJson } from "../render/json.ts";
import type { Report } from "../report/model.ts";
import { parseListen, SERVED_PATHS, startHttpServer } from "./http.ts";
import { runRoundLoop } from "./loop.ts";
import { ServeState } from "./state.ts";

const BUILD = { version: "0.1.0", deno: "2.9.6", reportSchema: "2" };

async function withServer(state: ServeState, fn: (base: string) => Promise<void>): Promise<void> {
  const server = startHttpServer(state, BUILD, { hostname: "127.0.0.1", port: 0 });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

Deno.test("serve http: before the first round only /healthz and /metrics answer 200", async () => {
  await withServer(new ServeState(), async (base) => {
    assert.equal((await get(`${base}/healthz`)).status, 200);
    assert.equal((await get(`${base}/metrics`)).status, 200);
    for (const p of ["/readyz", "/report", "/"]) assert.equal((await get(`${base}${p}`)).status, 503, p);
  });
});

Deno.test("serve http: after a round: the report as JSON (as `check -o json`) and as HTML; GET only", async () => {
  const state = new ServeState();
  const report = sampleReport();
  state.recordRound(report, 10);
  await withServer(state, async (base) => {
    assert.equal((await get(`${base}/readyz`)).status, 200);
    const json = await get(`${base}/report`);
    assert.equal(json.status, 200);
    assert.match(json.type, /^application\/json/);
    assert.equal(json.body, renderJson(report));
    const html = await get(`${base}/`);
    assert.match(html.type, /^text\/html/);
    assert.match(html.body, /^<!doctype html>/i);
    const metrics = await get(`${base}/metrics`);
    assert.equal(metrics.type, "text/plain; version=0.0.4; charset=utf-8");
    assert.match(metrics.body, /^flyingfish_check_status\{check="GW-02",layer="gateway",/m);
    for (const path of SERVED_PATHS) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const r = await get(`${base}${path}`, { method, body: method === "DELETE" ? undefined : "x" });
        assert.equal(r.status, 405, `${method} ${path}`);
      }
    }
    assert.equal((await get(`${base}/debug`)).status, 404);
  });
});

Deno.test("serve http: --listen forms", () => {
  assert.deepEqual(parseListen(":9464"), { hostname: "", port: 9464 });
  assert.deepEqual(parseListen("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListen("[::]:9464"), { hostname: "::", port: 9464 });
  for (const bad of ["9464", "host:", ":99999", "::1:80"]) assert.throws(() => parseListen(bad), Error, bad);
});

Deno.test("serve loop: one round per interval; a failed round is recorded and the loop goes on", async () => {
  const state = new ServeState();
  const stop = new AbortController();
  const outcomes: (Report | Error)[] = [
    sampleReport(),
    new Error("cannot reach the API server"),
    sampleReport(),
  ];
  let calls = 0;
  const lines: string[] = [];
  const loop = runRoundLoop({
    rounds: {
      next: () => {
        const o = outcomes[calls++];
        if (o === undefined) {
          stop.abort(); // the fourth round: stop under it
          return new Promise<Report>(() => {});
        }
        return o instanceof Error ? Promise.reject(o) : Promise.resolve(o);
      },
    },
    state,
    intervalMs: 5,
    signal: stop.signal,
    log: (l) => lines.push(l),
  });
  await loop;
  const s = state.snapshot();
  assert.deepEqual(s.rounds, { success: 2, error: 1 });
  assert.equal(s.lastError, null);
  assert.deepEqual(lines, ["round failed: cannot reach the API server", "round succeeded again"]);
});

Deno.test("serve loop: a missing Deno permission ends the loop (it will not heal by itself)", async () => {
  const state = new ServeState();
  await assert.rejects(
    runRoundLoop({
      rounds: {
        next: () => Promise.reject(new PermissionError("--allow-net", "reach the API server 10.0.0.1")),
      },
      state,
      intervalMs: 5,
      signal: new AbortController().signal,
    }),
    PermissionError,
  );
});

Deno.test("serve loop: a stop does not wait for the round in flight", async () => {
  const stop = new AbortController();
  const loop = runRoundLoop({
    rounds: { next: () => new Promise<Report>(() => {}) }, // a round that never ends by itself
    state: new ServeState(),
    intervalMs: 5,
    signal: stop.signal,
  });
  setTimeout(() => stop.abort(), 10);
  await loop;
});
