import assert from "node:assert/strict";
import { type ExecClock, runCommand, type WireguardState } from "./exec.ts";

const NOW = new Date("2026-11-30T03:00:00Z");
const clock = (elapsedSeconds = 0): ExecClock => ({ now: NOW, elapsedSeconds });
const NOW_S = NOW.getTime() / 1000;

const STATE: WireguardState = {
  "ns/gw": {
    interfaces: [{
      name: "liqo-tunnel",
      privateKey: "PRIV=",
      publicKey: "PUB=",
      listenPort: 51840,
      fwmark: "off",
      mtu: 1340,
      peers: [
        {
          publicKey: "PEER1=",
          presharedKey: "(none)",
          endpoint: "203.0.113.50:51840",
          allowedIps: ["0.0.0.0/0"],
          handshakeAgoSeconds: 25,
          rxBytes: 100,
          txBytes: 200,
          rxBytesPerSecond: 120,
          txBytesPerSecond: 60,
          persistentKeepalive: "off",
        },
        { publicKey: "PEER2=", handshakeAgoSeconds: null },
      ],
    }],
  },
  "ns/broken": null,
  "ns/err": { execError: "error: unable to upgrade connection: container not found" },
  "ns/garbled": { interfaces: [], dumpOverride: "liqo-tunnel\tonly-two-fields\n" },
};

Deno.test("exec: wg show all dump is formatted like wireguard-tools", () => {
  const r = runCommand(STATE["ns/gw"], ["wg", "show", "all", "dump"], clock());
  assert.equal(r.exitCode, 0);
  assert.equal(
    r.stdout,
    [
      "liqo-tunnel\tPRIV=\tPUB=\t51840\toff",
      `liqo-tunnel\tPEER1=\t(none)\t203.0.113.50:51840\t0.0.0.0/0\t${NOW_S - 25}\t100\t200\toff`,
      "liqo-tunnel\tPEER2=\t(none)\t(none)\t(none)\t0\t0\t0\toff",
    ].join("\n") + "\n",
  );
  const one = runCommand(STATE["ns/gw"], ["wg", "show", "liqo-tunnel", "dump"], clock());
  assert.equal(one.stdout.split("\n")[0], "PRIV=\tPUB=\t51840\toff");
  assert.equal(one.stdout.split("\n")[1].split("\t").length, 8);
});

Deno.test("exec: wg show fields and moving counters", () => {
  const s = STATE["ns/gw"];
  assert.equal(runCommand(s, ["wg", "show", "interfaces"], clock()).stdout, "liqo-tunnel\n");
  assert.equal(runCommand(s, ["wg", "show", "liqo-tunnel", "public-key"], clock()).stdout, "PUB=\n");
  assert.equal(runCommand(s, ["wg", "show", "liqo-tunnel", "listen-port"], clock()).stdout, "51840\n");
  assert.equal(runCommand(s, ["wg", "show", "liqo-tunnel", "peers"], clock()).stdout, "PEER1=\nPEER2=\n");
  assert.equal(
    runCommand(s, ["wg", "show", "liqo-tunnel", "latest-handshakes"], clock()).stdout,
    `PEER1=\t${NOW_S - 25}\nPEER2=\t0\n`,
  );
  assert.equal(
    runCommand(s, ["wg", "show", "all", "latest-handshakes"], clock()).stdout,
    `liqo-tunnel\tPEER1=\t${NOW_S - 25}\nliqo-tunnel\tPEER2=\t0\n`,
  );
  assert.equal(
    runCommand(s, ["wg", "show", "liqo-tunnel", "transfer"], clock(0)).stdout,
    "PEER1=\t100\t200\nPEER2=\t0\t0\n",
  );
  assert.equal(
    runCommand(s, ["wg", "show", "liqo-tunnel", "transfer"], clock(3)).stdout,
    "PEER1=\t460\t380\nPEER2=\t0\t0\n",
  );
  assert.equal(
    runCommand(s, ["wg", "show", "all", "transfer"], clock(3)).stdout.split("\n")[0],
    "liqo-tunnel\tPEER1=\t460\t380",
  );
  const pretty = runCommand(s, ["wg", "show"], clock()).stdout;
  assert.match(pretty, /interface: liqo-tunnel/);
  assert.match(pretty, /latest handshake: 25 seconds ago/);
  const missing = runCommand(s, ["wg", "show", "wg0", "dump"], clock());
  assert.equal(missing.exitCode, 1);
  assert.equal(missing.stderr, "Unable to access interface: No such device\n");
});

Deno.test("exec: pods without WireGuard, exec errors and garbled dumps", () => {
  for (const st of [undefined, STATE["ns/broken"]]) {
    const r = runCommand(st, ["wg", "show", "all", "dump"], clock());
    assert.equal(r.exitCode, 1);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, "Unable to access interface: No such device\n");
  }
  const e = runCommand(STATE["ns/err"], ["wg", "show", "all", "dump"], clock());
  assert.equal(e.exitCode, 1);
  assert.match(e.stderr, /container not found/);
  assert.equal(
    runCommand(STATE["ns/garbled"], ["wg", "show", "all", "dump"], clock()).stdout,
    "liqo-tunnel\tonly-two-fields\n",
  );
  const empty = runCommand({ interfaces: [] }, ["wg", "show", "all", "dump"], clock());
  assert.deepEqual(empty, { stdout: "", stderr: "", exitCode: 0 });
});

Deno.test("exec: ip link and /sys mtu", () => {
  const s = STATE["ns/gw"];
  const all = runCommand(s, ["ip", "link", "show"], clock()).stdout;
  assert.match(all, /^1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 /m);
  assert.match(all, /^2: eth0@if17: .* mtu 1500 /m);
  assert.match(all, /^3: liqo-tunnel: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1340 /m);
  const one = runCommand(s, ["ip", "-o", "link", "show", "liqo-tunnel"], clock());
  assert.equal(one.stdout.split("\n").length, 2);
  assert.match(one.stdout, /^3: liqo-tunnel: .*mtu 1340 .*\\ {4}link\/none/);
  assert.equal(runCommand(s, ["ip", "link", "show", "dev", "eth0"], clock()).exitCode, 0);
  const nodev = runCommand(s, ["ip", "link", "show", "wg9"], clock());
  assert.equal(nodev.exitCode, 1);
  assert.equal(nodev.stderr, 'Device "wg9" does not exist.\n');
  assert.equal(runCommand(s, ["cat", "/sys/class/net/liqo-tunnel/mtu"], clock()).stdout, "1340\n");
  assert.equal(runCommand(s, ["cat", "/sys/class/net/eth0/mtu"], clock()).stdout, "1500\n");
  assert.equal(runCommand(s, ["cat", "/sys/class/net/wg9/mtu"], clock()).exitCode, 1);
});

Deno.test("exec: eth0 MTU of an overlay underlay (eth0Mtu)", () => {
  const s = { ...STATE["ns/gw"]!, eth0Mtu: 1280 };
  assert.equal(runCommand(s, ["cat", "/sys/class/net/eth0/mtu"], clock()).stdout, "1280\n");
  assert.match(
    runCommand(s, ["ip", "-o", "link", "show", "eth0"], clock()).stdout,
    /^2: eth0@if17: .* mtu 1280 /,
  );
});

Deno.test("exec: unknown commands and shells fail like the container runtime", () => {
  for (const cmd of [["sh", "-c", "wg show"], ["nslookup", "x"]]) {
    const r = runCommand(STATE["ns/gw"], cmd, clock());
    assert.equal(r.exitCode, 127);
    assert.equal(r.stderr, `exec: "${cmd[0]}": executable file not found in $PATH`);
  }
});
