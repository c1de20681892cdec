import assert from "node:assert/strict";
import { handshakeReading, rates, unreadableCounters } from "./wireguard.ts";
import { parseSingleInterfaceDump, parseWgDump, toSample } from "./wireguard_dump.ts";

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

Deno.test("parseWgDump reads interfaces and peers", () => {
  const { interfaces, problems } = parseWgDump(DUMP, 0);
  assert.deepEqual(problems, []);
  assert.equal(interfaces.length, 3);
  assert.deepEqual(interfaces[0], {
    name: "liqo-tunnel",
    publicKey: PUB,
    listenPort: 51840,
    peers: [{
      publicKey: PEER,
      endpoint: "203.0.113.7:51840",
      allowedIps: ["0.0.0.0/0"],
      latestHandshake: 1767225600,
      rxBytes: 1000,
      txBytes: 2000,
      persistentKeepalive: null,
    }],
  });
  assert.deepEqual(interfaces[1].peers[0], {
    publicKey: PEER2,
    endpoint: null,
    allowedIps: [],
    latestHandshake: 0,
    rxBytes: 0,
    txBytes: 0,
    persistentKeepalive: 25,
  });
  assert.equal(interfaces[2].listenPort, 0);
});

Deno.test("parseWgDump never keeps the private key", () => {
  const garbled = DUMP + `liqo-tunnel\t${PRIV}\tjunk\n` + `liqo-tunnel2 ${PRIV}\n`;
  const parsed = parseWgDump(garbled, 0);
  assert.equal(JSON.stringify(parsed).includes(PRIV), false);
  assert.equal(parsed.problems.length, 2);
});

Deno.test("parseWgDump tolerates CRLF, trailing whitespace, spaces and empty output", () => {
  assert.deepEqual(parseWgDump("", 0), { interfaces: [], problems: [] });
  assert.deepEqual(parseWgDump("\n\r\n  \n", 0), { interfaces: [], problems: [] });
  const crlf = DUMP.replaceAll("\n", "  \r\n");
  assert.deepEqual(parseWgDump(crlf, 0).interfaces, parseWgDump(DUMP, 0).interfaces);
  const spaced = DUMP.replaceAll("\t", "   ");
  assert.deepEqual(parseWgDump(spaced, 0).interfaces, parseWgDump(DUMP, 0).interfaces);
  const multiAllowed = [
    "liqo-tunnel",
    PEER,
    "(none)",
    "10.0.0.1:1",
    "10.0.0.0/8,192.168.0.0/16",
    "5",
    "1",
    "2",
    "off",
  ].join("\t");
  const p = parseWgDump(`${DUMP}${multiAllowed}\n`, 0);
  assert.deepEqual(p.interfaces[0].peers[1].allowedIps, ["10.0.0.0/8", "192.168.0.0/16"]);
});

Deno.test("parseWgDump skips unreadable lines with a note, keeps peers with unreadable fields, never throws", () => {
  const bad = [
    "garbage",
    ["liqo-tunnel", PEER, "(none)", "x", "0.0.0.0/0", "notanumber", "1", "2", "off"].join("\t"),
    ["liqo-tunnel", PEER, "(none)", "x", "0.0.0.0/0", "1", "1", "2", "soon"].join("\t"),
    ["bad name with/slash", PRIV, PUB, "1", "off"].join("\t"),
    ["orphan", PEER, "(none)", "(none)", "(none)", "0", "0", "0", "off"].join("\t"),
    ["liqo-tunnel", PRIV, PUB, "99999", "off"].join("\t"),
  ].join("\n");
  const { interfaces, problems, unreadableLines } = parseWgDump(bad, 0);
  assert.equal(problems.length, 7, problems.join("\n"));
  assert.match(
    problems[0],
    /^line 1: skipped, not an interface nor a peer line \(1 fields, expected 5 or 9\)/,
  );
  assert.deepEqual(interfaces.map((i) => i.name), ["liqo-tunnel", "orphan"]);
  assert.deepEqual(interfaces[0].peers.map((p) => p.unreadable), [
    ['endpoint: "x"', 'latest-handshake: "notanumber"'],
    ['endpoint: "x"', 'persistent-keepalive: "soon"'],
  ]);
  assert.equal(interfaces[0].peers[0].latestHandshake, null);
  assert.equal(interfaces[0].peers[1].latestHandshake, 1);
  assert.equal(interfaces[0].peers[1].rxBytes, 1);
  assert.deepEqual(interfaces[0].unreadableLines, [
    "line 6: skipped, malformed interface line for liqo-tunnel",
  ]);
  assert.equal(interfaces[1].publicKey, "");
  assert.deepEqual(
    unreadableLines,
    ["line 1: skipped, unusable interface name", "line 4: skipped, unusable interface name"].map((l, i) =>
      i === 0 ? "line 1: skipped, not an interface nor a peer line (1 fields, expected 5 or 9)" : l
    ),
  );
  assert.equal(JSON.stringify(problems).includes(PRIV), false);
  // deno-lint-ignore no-explicit-any
  assert.deepEqual(parseWgDump(undefined as any, 0), { interfaces: [], problems: [] });
});

/** One healthy interface line, then `peer` (the 8 peer columns after the name). */
function dumpWith(...peerLines: string[]): string {
  return [["liqo-tunnel", PRIV, PUB, "51840", "off"].join("\t"), ...peerLines].join("\n") + "\n";
}
const peerLine = (over: Partial<Record<"hs" | "rx" | "tx" | "endpoint" | "ka" | "allowed", string>> = {}) =>
  [
    "liqo-tunnel",
    PEER,
    "(none)",
    over.endpoint ?? "203.0.113.7:51840",
    over.allowed ?? "0.0.0.0/0",
    over.hs ?? "1767225600",
    over.rx ?? "1000",
    over.tx ?? "2000",
    over.ka ?? "off",
  ].join("\t");

Deno.test("parseWgDump: a negative or textual latest-handshake keeps the peer, field unreadable", () => {
  for (const hs of ["-5", "abc", "1.5", "99999999999999999999"]) {
    const { interfaces, problems } = parseWgDump(dumpWith(peerLine({ hs })), 0);
    const [peer] = interfaces[0].peers;
    assert.equal(peer.publicKey, PEER, hs);
    assert.equal(peer.latestHandshake, null);
    assert.equal(peer.rxBytes, 1000);
    assert.equal(peer.endpoint, "203.0.113.7:51840");
    assert.equal(peer.unreadable?.length, 1);
    assert.ok(peer.unreadable![0].startsWith(`latest-handshake: ${JSON.stringify(hs)}`), peer.unreadable![0]);
    assert.match(
      problems.join("\n"),
      /line 2: peer xTIBA5rboU… on liqo-tunnel kept, unreadable latest-handshake/,
    );
    assert.deepEqual(handshakeReading(peer, 0), { kind: "unreadable", problem: peer.unreadable![0] });
  }
  // A plausible time far away is read; 0 is "never".
  const never = parseWgDump(dumpWith(peerLine({ hs: "0" })), 0).interfaces[0].peers[0];
  assert.deepEqual(handshakeReading(never, 5_000), { kind: "never" });
  const fresh = parseWgDump(dumpWith(peerLine({ hs: "100" })), 0).interfaces[0].peers[0];
  assert.deepEqual(handshakeReading(fresh, 142_000), { kind: "age", seconds: 42 });
});

Deno.test("parseWgDump: counters are exact u64 (2^64-1 is a bigint reading), above 2^64-1 unreadable", () => {
  const max = "18446744073709551615";
  const p = parseWgDump(dumpWith(peerLine({ rx: max, tx: "9007199254740993" })), 0).interfaces[0].peers[0];
  assert.equal(p.rxBytes, 18446744073709551615n);
  assert.equal(p.txBytes, 9007199254740993n);
  assert.equal(p.unreadable, undefined);
  assert.equal(
    parseWgDump(dumpWith(peerLine({ rx: "9007199254740991" })), 0).interfaces[0].peers[0].rxBytes,
    9007199254740991,
  );

  const first = toSample(
    parseWgDump(dumpWith(peerLine({ rx: "18446744073709551255", tx: "9007199254740993" })), 0),
    0,
  );
  const second = toSample(parseWgDump(dumpWith(peerLine({ rx: max, tx: "9007199254741093" })), 0), 3_000);
  // Doubles would round both to the same value and call the tunnel flat.
  assert.deepEqual(rates(first, second).map((r) => [r.rxDelta, r.txDelta, r.reset]), [[360, 100, false]]);
  assert.deepEqual(unreadableCounters(first, second), []);

  for (const rx of ["18446744073709551616", "-1", "1e3", "lots"]) {
    const q = parseWgDump(dumpWith(peerLine({ rx })), 0).interfaces[0].peers[0];
    assert.equal(q.publicKey, PEER);
    assert.equal(q.rxBytes, null);
    assert.equal(q.txBytes, 2000);
    assert.ok(q.unreadable![0].startsWith(`transfer-rx: ${JSON.stringify(rx)}`), q.unreadable![0]);
    const bad = toSample(parseWgDump(dumpWith(peerLine({ rx })), 0), 3_000);
    assert.deepEqual(rates(first, bad), []);
    assert.deepEqual(unreadableCounters(first, bad), [{
      interface: "liqo-tunnel",
      publicKey: PEER,
      problems: [q.unreadable![0]],
    }]);
  }
  assert.match(
    parseWgDump(dumpWith(peerLine({ tx: "18446744073709551616" })), 0).interfaces[0].peers[0].unreadable![0],
    /^transfer-tx: "18446744073709551616" \(above 2\^64-1\)$/,
  );
});

Deno.test("parseWgDump: a newline in the endpoint joins the two halves, endpoint unreadable", () => {
  const broken = peerLine({ endpoint: "203.0.113.7\n:51840" });
  const { interfaces, problems, unreadableLines } = parseWgDump(
    dumpWith(broken, peerLine().replace(PEER, PEER2)),
    0,
  );
  assert.equal(unreadableLines, undefined);
  const [a, b] = interfaces[0].peers;
  assert.equal(a.publicKey, PEER);
  assert.equal(a.endpoint, null);
  assert.deepEqual(a.unreadable, ['endpoint: "203.0.113.7\\n:51840" (line break inside the field)']);
  assert.equal(a.latestHandshake, 1767225600);
  assert.equal(a.rxBytes, 1000);
  assert.equal(b.publicKey, PEER2);
  assert.equal(b.unreadable, undefined);
  assert.match(problems.join("\n"), /line 2: a line break inside a field, joined with line 3/);
  // A break right after the endpoint (the next line starts with a tab) joins too.
  const atTab = parseWgDump(dumpWith(peerLine().replace("51840\t", "51840\n\t")), 0);
  assert.equal(atTab.interfaces[0].peers.length, 1);
  assert.equal(atTab.interfaces[0].peers[0].rxBytes, 1000);
  // CRLF output with the same break.
  const crlf = parseWgDump(dumpWith(broken).replaceAll("\n", "\r\n"), 0);
  assert.equal(crlf.interfaces[0].peers[0].publicKey, PEER);
  assert.equal(crlf.interfaces[0].peers[0].latestHandshake, 1767225600);
});

Deno.test("parseWgDump: a missing or extra column keeps the key, every other field unreadable", () => {
  const cols = peerLine().split("\t");
  for (
    const line of [
      cols.filter((_, i) => i !== 2).join("\t"), // no preshared key column
      cols.filter((_, i) => i !== 5).join("\t"), // no handshake column
      cols.slice(0, 4).join("\t"), // cut after the endpoint
      [...cols, "extra"].join("\t"),
    ]
  ) {
    const { interfaces, problems } = parseWgDump(dumpWith(line), 0);
    const peer = interfaces[0].peers[0];
    assert.equal(peer?.publicKey, PEER, line);
    assert.equal(peer.latestHandshake, null);
    assert.equal(peer.rxBytes, null);
    assert.equal(peer.endpoint, null);
    assert.equal(peer.unreadable?.length, 6);
    assert.match(peer.unreadable![2], /^latest-handshake: columns cannot be matched/);
    assert.equal(problems.length, 1);
  }
  // The second half of a split line that cannot be joined is an unattributed unreadable line.
  const split = parseWgDump(dumpWith(cols.slice(0, 4).join("\t"), "junk:1\tmore"), 0);
  assert.equal(split.interfaces[0].peers[0].publicKey, PEER);
  assert.deepEqual(split.unreadableLines, ["line 3: skipped, unusable interface name"]);
});

Deno.test("parseWgDump: a peer line without a usable key is an unreadable line of its interface", () => {
  const cols = peerLine().split("\t");
  const { interfaces } = parseWgDump(dumpWith(["liqo-tunnel", "(none)", ...cols.slice(2)].join("\t")), 0);
  assert.deepEqual(interfaces[0].peers, []);
  assert.deepEqual(interfaces[0].unreadableLines, [
    "line 2: skipped, peer without a readable public key on liqo-tunnel",
  ]);
});

Deno.test("parseWgDump: garbled interface lines are never read as peers (the private key is never kept)", () => {
  for (
    const garbled of [
      ["liqo-tunnel", PRIV, PUB, "51840"], // fwmark missing
      ["liqo-tunnel", PRIV, PUB, "51840", "off", "x"], // extra column
      ["liqo-tunnel", PRIV, PUB, "abc", "off"], // port garbage
      ["liqo-tunnel", PRIV, PUB, "(none)"],
      ["liqo-tunnel", PRIV, PUB, "1.2.3.4:5"],
      ["liqo-tunnel", PRIV],
    ]
  ) {
    const first = parseWgDump(garbled.join("\t") + "\n", 0);
    assert.equal(JSON.stringify(first).includes(PRIV), false, garbled.join(" "));
    const after = parseWgDump(DUMP + garbled.join("\t") + "\n", 0);
    assert.equal(JSON.stringify(after).includes(PRIV), false, garbled.join(" "));
  }
  // Before its interface line was seen, even a peer-shaped line is not read as a peer.
  const firstLine = parseWgDump(["liqo-tunnel", PRIV, "(none)", "1.2.3.4:5"].join("\t") + "\n", 0);
  assert.equal(JSON.stringify(firstLine).includes(PRIV), false);
  const single = parseSingleInterfaceDump(
    "liqo-tunnel",
    [PRIV, PUB, "51840", "off"].join("\t") + "\n" + [PRIV, PUB, "x"].join("\t"),
    0,
  );
  assert.equal(JSON.stringify(single).includes(PRIV), false);
});

Deno.test("parseSingleInterfaceDump reads `wg show <if> dump`", () => {
  const text = [
    [PRIV, PUB, "51840", "off"].join("\t"),
    [PEER, "(none)", "198.51.100.1:4000", "0.0.0.0/0", "100", "5", "6", "off"].join("\t"),
    "",
  ].join("\n");
  const { interfaces, problems } = parseSingleInterfaceDump("liqo-tunnel", text, 0);
  assert.deepEqual(problems, []);
  assert.equal(interfaces.length, 1);
  assert.equal(interfaces[0].name, "liqo-tunnel");
  assert.equal(interfaces[0].peers[0].endpoint, "198.51.100.1:4000");
  assert.equal(JSON.stringify(interfaces).includes(PRIV), false);
  assert.equal(parseSingleInterfaceDump("../etc", text, 0).interfaces.length, 0);
});

Deno.test("a cut peer line with the interface's column count neither replaces the interface nor vanishes", () => {
  // Shrunk by tests/fuzz/wg_fuzz_test.ts: the peer line cut inside allowed-ips has 5 fields, and
  // "(none)" in its endpoint column looks like a listen port.
  const itf = ["liqo-tunnel", PRIV, PUB, "51840", "off"].join("\t");
  const cut = ["liqo-tunnel", PEER, "(none)", "(none)", "(no"].join("\t");
  const p = parseWgDump(`${itf}\n${cut}\n`);
  assert.equal(p.interfaces.length, 1);
  assert.equal(p.interfaces[0].publicKey, PUB);
  assert.equal(p.interfaces[0].listenPort, 51840);
  assert.deepEqual(p.interfaces[0].peers, []);
  assert.match(
    p.interfaces[0].unreadableLines?.join("\n") ?? "",
    /line 2: skipped, 5 fields after the interface line/,
  );
  assert.ok(!JSON.stringify(p).includes(PRIV));
});

Deno.test("an interface line with shifted columns is never read with the private key as its public key", () => {
  // Shrunk by tests/fuzz/wg_fuzz_test.ts: a column added before the name and the public key column
  // lost put the private key where the public key belongs (`+ liqo-tunnel PRIV 0 off`).
  for (const cols of [["+", "liqo-tunnel", PRIV, "0", "off"], ["liqo-tunnel", "(none)", PRIV, "0", "off"]]) {
    const p = parseWgDump(`${cols.join("\t")}\n`);
    assert.ok(!JSON.stringify(p).includes(PRIV), cols.join(" "));
    assert.match(p.problems.join("\n"), /line 1: skipped, malformed interface line/);
  }
  // wg's own shapes still parse: two keys, or no key at all.
  const none = parseWgDump(["wg0", "(none)", "(none)", "off", "off"].join("\t") + "\n");
  assert.deepEqual(none.interfaces.map((i) => [i.name, i.publicKey]), [["wg0", ""]]);
});

Deno.test("a repeated interface line with a column added is never read as a peer keyed by the private key", () => {
  // Shrunk by tests/fuzz/wg_fuzz_test.ts: `liqo-tunnel PRIV 1.5 PUB 0 off` after the interface line
  // looked like a peer line whose preshared-key column is missing.
  const itf = ["liqo-tunnel", PRIV, PUB, "0", "off"];
  const p = parseWgDump(
    [itf, [...itf.slice(0, 2), "1.5", ...itf.slice(2)]].map((l) => l.join("\t")).join("\n"),
  );
  assert.ok(!JSON.stringify(p).includes(PRIV));
  assert.deepEqual(p.interfaces[0].peers, []);
});

Deno.test("an interface line whose private key a bundle already scrubbed keeps its public key", () => {
  const dump = [
    ["liqo-tunnel", "(redacted)", PUB, "51840", "off"].join("\t"),
    ["liqo-tunnel", PEER, "(none)", "203.0.113.50:51840", "10.80.0.2/32", "1700000000", "10", "20", "off"]
      .join("\t"),
  ].join("\n");
  const parsed = parseWgDump(dump);
  assert.equal(parsed.interfaces[0].publicKey, PUB);
  assert.equal(parsed.interfaces[0].peers[0].publicKey, PEER);
});
