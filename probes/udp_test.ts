import assert from "node:assert/strict";
import { probePayload, probeUdp, SILENCE_DETAIL } from "./udp.ts";
import { probeUdpPrecise } from "./udp_ffi.ts";

const HAS_FFI = Deno.permissions.querySync({ name: "ffi" }).state === "granted";

/** A loopback UDP listener that echoes (or swallows) datagrams until closed. */
function listener(echo: boolean): { port: number; received: () => number; close: () => Promise<void> } {
  const conn = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  let count = 0;
  const loop = (async () => {
    try {
      for await (const [data, addr] of conn) {
        count++;
        if (echo) await conn.send(data.subarray(0, 8), addr);
      }
    } catch { /* closed */ }
  })();
  return {
    port: (conn.addr as Deno.NetAddr).port,
    received: () => count,
    close: async () => {
      conn.close();
      await loop;
    },
  };
}

/** A loopback UDP port that was just released (nothing listens on it). */
function closedPort(): number {
  const c = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const port = (c.addr as Deno.NetAddr).port;
  c.close();
  return port;
}

Deno.test("payload is WireGuard handshake-initiation sized", () => {
  const p = probePayload();
  assert.equal(p.length, 148);
  assert.equal(p[0], 1);
});

Deno.test("probeUdp: loopback echo listener gives reply", async () => {
  const l = listener(true);
  try {
    const r = await probeUdp("127.0.0.1", l.port, { timeoutMs: 2000 });
    assert.equal(r.outcome, "reply", r.detail);
    assert.match(r.detail, /8-byte reply from 127\.0\.0\.1:/);
  } finally {
    await l.close();
  }
});

Deno.test("probeUdp: silent listener gives silence", async () => {
  const l = listener(false);
  try {
    const r = await probeUdp("127.0.0.1", l.port, { timeoutMs: 200 });
    assert.deepEqual(r, { outcome: "silence", detail: SILENCE_DETAIL });
    assert.equal(l.received(), 1);
  } finally {
    await l.close();
  }
});

Deno.test({
  name: "probeUdp precise: silent listener gives silence, echo gives reply",
  ignore: !HAS_FFI,
}, async () => {
  const silent = listener(false);
  const echo = listener(true);
  try {
    const s = await probeUdp("127.0.0.1", silent.port, { timeoutMs: 250, precise: true });
    assert.equal(s.outcome, "silence", s.detail);
    const r = await probeUdp("127.0.0.1", echo.port, { timeoutMs: 2000, precise: true });
    assert.equal(r.outcome, "reply", r.detail);
  } finally {
    await silent.close();
    await echo.close();
  }
});

Deno.test({
  name: "probeUdp precise: closed loopback port gives refused (needs --allow-ffi)",
  ignore: !HAS_FFI,
}, async () => {
  const port = closedPort();
  const r = await probeUdp("127.0.0.1", port, { timeoutMs: 2000, precise: true });
  assert.equal(r.outcome, "refused", r.detail);
  assert.match(r.detail, /ICMP port unreachable/);
});

Deno.test("probeUdp default mode cannot see a refusal on a closed port", async () => {
  const port = closedPort();
  const r = await probeUdp("127.0.0.1", port, { timeoutMs: 150 });
  assert.equal(r.outcome, "silence");
});

Deno.test({
  name: "probeUdp: no net permission for a non-loopback host → unavailable, nothing sent",
  permissions: { net: ["127.0.0.1"], ffi: "inherit" },
  fn: async () => {
    const r = await probeUdp("203.0.113.50", 51840, { timeoutMs: 100 });
    assert.deepEqual(r, {
      outcome: "unavailable",
      detail: "no net permission for 203.0.113.50:51840 (--allow-net)",
    });
    const p = await probeUdp("203.0.113.50", 51840, { timeoutMs: 100, precise: true });
    assert.equal(p.outcome, "unavailable");
    // FFI bypasses --allow-net: the precise probe must refuse on its own.
    const f = await probeUdpPrecise("203.0.113.50", 51840, { timeoutMs: 100 });
    assert.deepEqual(f, {
      outcome: "unavailable",
      detail: "no net permission for 203.0.113.50:51840 (--allow-net)",
    });
    const named = await probeUdpPrecise("gateway.example.com", 51840, { timeoutMs: 100 });
    assert.equal(named.outcome, "unavailable");
  },
});

Deno.test({
  name: "probeUdp precise without --allow-ffi falls back to the default mode",
  permissions: { net: ["127.0.0.1"], ffi: false },
  fn: async () => {
    const f = await probeUdpPrecise("127.0.0.1", 9, { timeoutMs: 100 });
    assert.deepEqual(f, { outcome: "unavailable", detail: "precise UDP needs --allow-ffi" });
    const l = listener(false);
    try {
      const r = await probeUdp("127.0.0.1", l.port, { timeoutMs: 100, precise: true });
      assert.equal(r.outcome, "silence");
      assert.match(r.detail, /precise mode unavailable: precise UDP needs --allow-ffi/);
    } finally {
      await l.close();
    }
  },
});

Deno.test("probeUdp: invalid port and abort", async () => {
  assert.equal((await probeUdp("127.0.0.1", 0, { timeoutMs: 10 })).outcome, "unavailable");
  assert.equal((await probeUdp("127.0.0.1", 70000, { timeoutMs: 10 })).outcome, "unavailable");
  const l = listener(false);
  try {
    const ctl = new AbortController();
    const p = probeUdp("127.0.0.1", l.port, { timeoutMs: 5000, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 30);
    const started = Date.now();
    assert.deepEqual(await p, { outcome: "unavailable", detail: "aborted" });
    assert.ok(Date.now() - started < 2000);
    const c2 = new AbortController();
    const q = probeUdp("127.0.0.1", l.port, { timeoutMs: 5000, precise: true, signal: c2.signal });
    setTimeout(() => c2.abort(), 30);
    assert.deepEqual(await q, { outcome: "unavailable", detail: "aborted" });
  } finally {
    await l.close();
  }
});
