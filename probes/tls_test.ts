import assert from "node:assert/strict";
import { generateTlsMaterial } from "../fakekube/mod.ts";
import { dialTls, tlsTarget } from "./tls.ts";
import { parseCertificate } from "./x509.ts";

/** A loopback TLS server that completes handshakes and closes. */
async function tlsServer(): Promise<{ port: number; caPem: string; close: () => Promise<void> }> {
  const m = await generateTlsMaterial();
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert: m.certPem, key: m.keyPem });
  const loop = (async () => {
    for await (const conn of listener) {
      conn.handshake().catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch { /* closed */ }
      });
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    caPem: m.caPem,
    close: async () => {
      listener.close();
      await loop;
    },
  };
}

/** A loopback TCP server that accepts and then closes at once, or never answers. */
function tcpServer(mode: "close" | "hang"): { port: number; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const loop = (async () => {
    for await (const conn of listener) {
      if (mode === "close") conn.close();
      else held.push(conn);
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    close: async () => {
      listener.close();
      for (const c of held) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop;
    },
  };
}

function closedTcpPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

Deno.test("tlsTarget parses https URLs", () => {
  assert.deepEqual(tlsTarget("https://203.0.113.20:6443"), { hostname: "203.0.113.20", port: 6443 });
  assert.deepEqual(tlsTarget("https://api.example.com"), { hostname: "api.example.com", port: 443 });
  assert.deepEqual(tlsTarget("https://[2001:db8::1]:6443/"), { hostname: "2001:db8::1", port: 6443 });
  assert.equal(tlsTarget("http://x:80"), null);
  assert.equal(tlsTarget("not a url"), null);
});

Deno.test("dialTls: trusted CA gives ok with verified TLS", async () => {
  const s = await tlsServer();
  try {
    assert.equal(parseCertificate(s.caPem).commonName, "fakekube-ca");
    const r = await dialTls(`https://127.0.0.1:${s.port}`, { timeoutMs: 5000, caCerts: [s.caPem] });
    assert.equal(r.outcome, "ok", r.detail);
    assert.match(r.detail, /^TCP\+TLS reachable \(TCP \d+ ms, TLS handshake done\)$/);
    if (r.outcome === "ok") assert.ok(r.ms >= 0);
  } finally {
    await s.close();
  }
});

Deno.test("dialTls: unknown CA still counts as reachable", async () => {
  const s = await tlsServer();
  try {
    const r = await dialTls(`https://127.0.0.1:${s.port}/livez`, { timeoutMs: 5000 });
    assert.equal(r.outcome, "ok", r.detail);
    assert.match(r.detail, /^TCP\+TLS reachable \(certificate not verified: .*UnknownIssuer/);
  } finally {
    await s.close();
  }
});

Deno.test("dialTls: closed port is refused", async () => {
  const r = await dialTls(`https://127.0.0.1:${closedTcpPort()}`, { timeoutMs: 2000 });
  assert.equal(r.outcome, "failed");
  assert.match(r.detail, /refused/);
});

Deno.test("dialTls: server closing the connection fails the handshake", async () => {
  const s = tcpServer("close");
  try {
    const r = await dialTls(`https://127.0.0.1:${s.port}`, { timeoutMs: 2000 });
    assert.equal(r.outcome, "failed", r.detail);
    assert.match(r.detail, /connected but TLS failed/);
  } finally {
    await s.close();
  }
});

Deno.test("dialTls: silent server times out", async () => {
  const s = tcpServer("hang");
  try {
    const started = Date.now();
    const r = await dialTls(`https://127.0.0.1:${s.port}`, { timeoutMs: 200 });
    assert.equal(r.outcome, "failed", r.detail);
    assert.match(r.detail, /TLS handshake timed out after 200 ms/);
    assert.ok(Date.now() - started < 2000);
  } finally {
    await s.close();
  }
});

Deno.test("dialTls: abort gives unavailable", async () => {
  const s = tcpServer("hang");
  try {
    const ctl = new AbortController();
    const p = dialTls(`https://127.0.0.1:${s.port}`, { timeoutMs: 5000, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    assert.deepEqual(await p, { outcome: "unavailable", detail: "aborted" });
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "dialTls: no net permission gives unavailable, nothing dialled",
  permissions: { net: ["127.0.0.1"] },
  fn: async () => {
    const r = await dialTls("https://203.0.113.20:6443", { timeoutMs: 100 });
    assert.deepEqual(r, {
      outcome: "unavailable",
      detail: "no net permission for 203.0.113.20:6443 (--allow-net)",
    });
    const n = await dialTls("https://api.unreachable.example", { timeoutMs: 100 });
    assert.equal(n.outcome, "unavailable");
  },
});

Deno.test("dialTls: bad URL fails", async () => {
  assert.deepEqual(await dialTls("ftp://x", { timeoutMs: 10 }), {
    outcome: "failed",
    detail: "not an https URL: ftp://x",
  });
});
