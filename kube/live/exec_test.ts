/**
 * The Exec API against a misbehaving websocket server: every failure becomes an outcome
 * (`{ ok: false, reason: "error" }`), never an uncaught error, and a hang ends at the request timeout.
 */
import assert from "node:assert/strict";
import type { ExecOutcome } from "../source.ts";
import { openKubeClient } from "./client.ts";
import { createExecutor } from "./exec.ts";

type Behaviour = (socket: WebSocket) => void;

const STATUS_OK = JSON.stringify({ metadata: {}, status: "Success" });

function frame(channel: number, data: string | Uint8Array): Uint8Array {
  const body = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const out = new Uint8Array(body.length + 1);
  out[0] = channel;
  out.set(body, 1);
  return out;
}

/** A plain-HTTP server on 127.0.0.1 whose exec websocket (v5/v4) behaves as told. */
function execServer(behave: Behaviour): { url: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (!new URL(req.url).pathname.endsWith("/exec")) return new Response("not found", { status: 404 });
    const offered = (req.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
    const protocol = offered.find((p) => p === "v5.channel.k8s.io" || p === "v4.channel.k8s.io") ??
      "v4.channel.k8s.io";
    // Deno matches `protocol` only against a header split on ", " (ws sends "a,b"): set it ourselves.
    const { socket, response } = Deno.upgradeWebSocket(req);
    response.headers.set("sec-websocket-protocol", protocol);
    socket.binaryType = "arraybuffer";
    socket.onopen = () => behave(socket);
    socket.onerror = () => {};
    return response;
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    close: async () => {
      await server.shutdown();
    },
  };
}

function kubeconfig(url: string): string {
  return `apiVersion: v1
kind: Config
current-context: t
clusters: [{name: t, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]
users: [{name: t, user: {token: abc}}]
contexts: [{name: t, context: {cluster: t, user: t}}]
`;
}

async function execAgainst(behave: Behaviour, timeoutMs = 3000): Promise<{ out: ExecOutcome; ms: number }> {
  const srv = execServer(behave);
  const client = await openKubeClient({ kubeconfigYaml: kubeconfig(srv.url), requestTimeoutMs: timeoutMs });
  try {
    const ex = await createExecutor(client, { execVia: "api" });
    const started = Date.now();
    const out = await ex.exec("ns", "pod", "wireguard", ["wg", "show", "all", "dump"]);
    return { out, ms: Date.now() - started };
  } finally {
    await client.close();
    await srv.close();
  }
}

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "exec: a well-formed exchange still succeeds",
  ...sanitizers,
  fn: async () => {
    const { out } = await execAgainst((s) => {
      s.send(frame(1, "hello\n"));
      s.send(frame(3, STATUS_OK));
      s.close();
    });
    assert.equal(out.ok, true, JSON.stringify(out));
    if (out.ok) assert.equal(out.stdout, "hello\n");
  },
});

Deno.test({
  name: "exec: a non-JSON status on channel 3 is an error outcome",
  ...sanitizers,
  fn: async () => {
    const { out } = await execAgainst((s) => {
      s.send(frame(1, "partial"));
      s.send(frame(3, "this is not json"));
    });
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.reason, "error");
      assert.match(out.message, /^exec in ns\/pod: malformed exec frame on channel 3/);
    }
  },
});

Deno.test({
  name: "exec: data on an unknown channel is an error outcome",
  ...sanitizers,
  fn: async () => {
    for (const ch of [7, 4, 0]) {
      const { out } = await execAgainst((s) => {
        s.send(frame(ch, "noise"));
        s.send(frame(3, STATUS_OK));
      });
      assert.equal(out.ok, false, `channel ${ch}`);
      if (!out.ok) {
        assert.equal(out.reason, "error");
        assert.match(out.message, new RegExp(`malformed exec frame on channel ${ch}`));
      }
    }
  },
});

Deno.test({
  name: "exec: v5 close-stream frames are accepted and do not end the tool's stdout",
  ...sanitizers,
  fn: async () => {
    const { out } = await execAgainst((s) => {
      s.send(frame(1, "a"));
      s.send(new Uint8Array([255, 1]));
      s.send(frame(1, "b")); // after the close of stdout: ignored, not a crash
      s.send(frame(3, STATUS_OK));
    });
    assert.equal(out.ok, true, JSON.stringify(out));
  },
});

Deno.test({
  name: "exec: an abrupt close is an error outcome",
  ...sanitizers,
  fn: async () => {
    const { out } = await execAgainst((s) => {
      s.send(frame(1, "half a dump"));
      s.close(1011, "boom");
    });
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.reason, "error");
      assert.match(out.message, /closed without an exit status/);
    }
    const empty = await execAgainst((s) => s.send(new Uint8Array([])));
    assert.equal(empty.out.ok, false);
  },
});

Deno.test({
  name: "exec: a hang ends at the request timeout",
  ...sanitizers,
  fn: async () => {
    const { out, ms } = await execAgainst((s) => s.send(frame(1, "never finishes")), 400);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.message, /timed out after 400 ms/);
    assert.ok(ms < 3000, `${ms} ms`);
  },
});

Deno.test({
  name: "exec: output after the status and a status frame that is not an object do not crash",
  ...sanitizers,
  fn: async () => {
    const after = await execAgainst((s) => {
      s.send(frame(3, STATUS_OK));
      s.send(frame(1, "late"));
      s.send(frame(2, "late"));
    });
    assert.equal(after.out.ok, true, JSON.stringify(after.out));
    const scalar = await execAgainst((s) => s.send(frame(3, "42")));
    assert.equal(scalar.out.ok, false);
    if (!scalar.out.ok) assert.equal(scalar.out.reason, "error");
  },
});
