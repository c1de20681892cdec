import assert from "node:assert/strict";
import type { ClusterSource, ExecOutcome } from "../kube/source.ts";
import type { WgPeer, WgSample } from "./hub.ts";
import { collectWireguard, handshakeAgeSeconds, rates, tunnelInterfaces } from "./wireguard.ts";
import { parseWgDump, toSample } from "./wireguard_dump.ts";

const PRIV = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
const PUB = "HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=";
const PEER = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
const PEER2 = "TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=";

const DUMP = [
  ["liqo-tunnel", PRIV, PUB, "51840", "off"].join("\t"),
  ["liqo-tunnel", PEER, "(none)", "203.0.113.7:51840", "0.0.0.0/0", "1767225600", "1000", "2000", "off"].join(
    "\t",
  ),
  ["liqo-tunnel1", PRIV, PUB, "51841", "0x1"].join("\t"),
  ["liqo-tunnel1", PEER2, "(none)", "(none)", "(none)", "0", "0", "0", "25"].join("\t"),
  ["wg0", PRIV, PUB, "0", "off"].join("\t"),
].join("\n") + "\n";

Deno.test("handshakeAgeSeconds, tunnelInterfaces and rates", () => {
  const peer: WgPeer = {
    publicKey: PEER,
    endpoint: null,
    allowedIps: [],
    latestHandshake: 1000,
    rxBytes: 0,
    txBytes: 0,
    persistentKeepalive: null,
  };
  assert.equal(handshakeAgeSeconds(peer, 1_042_500), 42);
  assert.equal(handshakeAgeSeconds(peer, 900_000), 0);
  assert.equal(handshakeAgeSeconds({ ...peer, latestHandshake: 0 }, 1_042_500), null);

  const first = toSample(parseWgDump(DUMP, 0), 10_000);
  assert.deepEqual(tunnelInterfaces(first).map((i) => i.name), ["liqo-tunnel", "liqo-tunnel1"]);
  const later = DUMP.replace("\t1000\t2000\t", "\t1600\t2000\t").replace("\t0\t0\t0\t25", "\t0\t300\t90\t25");
  const second = toSample(parseWgDump(later, 0), 13_000);
  const r = rates(first, second);
  assert.equal(r.length, 2);
  assert.deepEqual(r[0], {
    interface: "liqo-tunnel",
    publicKey: PEER,
    seconds: 3,
    rxDelta: 600,
    txDelta: 0,
    rxPerSec: 200,
    txPerSec: 0,
    reset: false,
  });
  assert.equal(r[1].rxPerSec, 100);
  assert.equal(r[1].txPerSec, 30);
  // Counters going backwards: interface recreated.
  const reset = rates(second, { ...first, takenAt: 20_000 });
  assert.equal(reset[0].reset, true);
  assert.equal(reset[0].rxPerSec, null);
  assert.deepEqual(rates(second, first), []);
});

/** A ClusterSource whose exec answers from a script. */
function fakeSource(
  answer: (container: string, cmd: readonly string[], call: number) => ExecOutcome,
  isSnapshot = false,
): ClusterSource & { calls: string[] } {
  let n = 0;
  const calls: string[] = [];
  return {
    calls,
    endpoint: { context: "rome", server: "https://127.0.0.1:6443" },
    now: () => isSnapshot ? new Date(5_000) : new Date(),
    isSnapshot,
    list: () => Promise.resolve({ ok: false, reason: "error", message: "n/a" }),
    discovery: () => Promise.resolve({ ok: false, reason: "error", message: "n/a" }),
    exec: (_ns, _pod, container, cmd) => {
      calls.push(`${container}: ${cmd.join(" ")}`);
      return Promise.resolve(answer(container, cmd, n++));
    },
    close: () => Promise.resolve(),
  };
}

const ok = (stdout: string, exitCode = 0, stderr = ""): ExecOutcome => ({
  ok: true,
  stdout,
  stderr,
  exitCode,
  via: "api",
});

Deno.test("collectWireguard takes two samples and reads MTUs", async () => {
  let dumps = 0;
  const src = fakeSource((_c, cmd) => {
    if (cmd[0] === "wg") {
      dumps++;
      return ok(dumps === 1 ? DUMP : DUMP.replace("\t1000\t2000\t", "\t1100\t2100\t"));
    }
    if (cmd[1] === "/sys/class/net/liqo-tunnel/mtu") return ok("1340\n");
    if (cmd[1] === "/sys/class/net/liqo-tunnel1/mtu") return ok("1340\n");
    if (cmd[1] === "/sys/class/net/eth0/mtu") return ok("1280\n");
    return ok("", 1, "cat: no such file");
  });
  const ev = await collectWireguard(src, "liqo-tenant-milan", "gw-milan-abc", 20);
  assert.equal(ev.ok, true);
  if (!ev.ok) return;
  assert.equal(ev.via, "api");
  assert.ok(ev.second);
  assert.ok(ev.second.takenAt - ev.first.takenAt >= 15);
  assert.deepEqual(ev.mtu, { "liqo-tunnel": 1340, "liqo-tunnel1": 1340 });
  assert.deepEqual(ev.notes, ["MTU of wg0 unreadable (exit 1)"]);
  assert.deepEqual(ev.underlay, { iface: "eth0", mtu: 1280 });
  assert.equal(src.calls.filter((c) => c === "wireguard: wg show all dump").length, 2);
  assert.ok(src.calls.every((c) => c.startsWith("wireguard: ")));
  const r = rates(ev.first, ev.second as WgSample);
  assert.equal(r[0].rxDelta, 100);
});

Deno.test("collectWireguard reports exec failures", async () => {
  const forbidden = await collectWireguard(
    fakeSource(() => ({ ok: false, reason: "forbidden", message: "pods/exec is forbidden for user x" })),
    "ns",
    "pod",
    1,
  );
  assert.deepEqual(forbidden, {
    ok: false,
    namespace: "ns",
    pod: "pod",
    reason: "forbidden",
    message: "exec forbidden: pods/exec is forbidden for user x",
  });
  const wgFails = await collectWireguard(
    fakeSource(() => ok("", 1, "Unable to access interface: Operation not permitted\n")),
    "ns",
    "pod",
    1,
  );
  assert.equal(wgFails.ok, false);
  if (!wgFails.ok) {
    assert.equal(wgFails.reason, "error");
    assert.match(wgFails.message, /^wg failed \(exit 1\): Unable to access interface/);
  }
  const throws = await collectWireguard(
    fakeSource(() => {
      throw new Error("socket hang up");
    }),
    "ns",
    "pod",
    1,
  );
  assert.equal(throws.ok, false);
});

Deno.test("collectWireguard keeps the first sample when the second fails", async () => {
  const src = fakeSource((_c, cmd, call) => {
    if (cmd[0] === "cat") return ok("1420");
    return call === 0 ? ok(DUMP) : { ok: false, reason: "error", message: "stream closed" };
  });
  const ev = await collectWireguard(src, "ns", "pod", 1);
  assert.equal(ev.ok, true);
  if (ev.ok) {
    assert.equal(ev.second, null);
    assert.ok(ev.notes.includes("second sample failed: exec failed: stream closed"));
  }
});

Deno.test("collectWireguard on a snapshot does not wait nor fake counter movement", async () => {
  const src = fakeSource((_c, cmd) => (cmd[0] === "wg" ? ok(DUMP) : ok("1340")), true);
  const started = Date.now();
  const ev = await collectWireguard(src, "ns", "pod", 10_000);
  assert.ok(Date.now() - started < 5000);
  assert.equal(ev.ok, true);
  if (ev.ok) {
    assert.equal(ev.second, null);
    assert.match(ev.notes.join("\n"), /only one sample/);
  }
});

Deno.test("collectWireguard honours an abort signal", async () => {
  const ctl = new AbortController();
  const src = fakeSource((_c, cmd) => (cmd[0] === "wg" ? ok(DUMP) : ok("1340")));
  const p = collectWireguard(src, "ns", "pod", 60_000, ctl.signal);
  setTimeout(() => ctl.abort(), 10);
  const ev = await p;
  assert.equal(ev.ok, true);
  if (ev.ok) {
    assert.equal(ev.second, null);
    assert.ok(ev.notes.includes("second sample skipped: aborted"));
  }
  ctl.abort();
  const pre = await collectWireguard(src, "ns", "pod", 1, ctl.signal);
  assert.equal(pre.ok, false);
});
