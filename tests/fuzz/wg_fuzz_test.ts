/**
 * Property-based fuzzing of `wg show all dump` (issue 10): valid dumps from arbitrary keys, endpoints,
 * counters and handshakes, then per-field corruption (negative or textual handshakes, counters up to
 * and beyond 2^64 − 1, line breaks inside fields, missing and extra columns, truncated lines, lines
 * of random bytes, repeated lines). Properties:
 *
 * - parseWgDump never throws (on corrupted dumps and on random text);
 * - it never keeps an interface private key: the key's text appears nowhere in the parse result;
 * - a peer line whose field values only are broken is always kept; one cut, split or re-columned
 *   around intact interface and key columns is kept or reported unreadable, never silently lost;
 * - TUN-04 is never `fail` when the peer's PublicKey matches a peer line whose key is intact.
 *
 * Seeded (tests/support/fuzz.ts): `FUZZ_SEED=<n>` replays another sequence, `FUZZ_RUNS=<n>` soaks.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, locked in tests/deno.lock (tests/support/runtime_lock.ts)
import fc from "npm:fast-check@4.11.0";
import type { WgEvidence } from "../../probes/hub.ts";
import { parseWgDump, toSample } from "../../probes/wireguard_dump.ts";
import { BASE_TIME, scriptedProbes } from "../support/fixtures.ts";
import { fuzzParams } from "../support/fuzz.ts";
import { rome, ROME_POD, run, text } from "../support/tunnel_checks.ts";

/** The key of rome's PublicKey CR for milan (tests/support/tunnel_checks.ts). */
const MILAN_KEY = "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=";
const U64_MAX = (1n << 64n) - 1n;

// ---------------------------------------------------------------------------------------------
// Valid dumps.

const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
/** Public and preshared keys never start with "/"; private keys always do, so the two never coincide. */
const key = bytes32.map((b) => b64(Uint8Array.of(b[0] % 0xf0, ...b.slice(1))));
const privateKey = bytes32.map((b) => b64(Uint8Array.of(0xff, ...b.slice(1))));
const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));
const endpoint = fc.oneof(
  fc.constant("(none)"),
  fc.tuple(ipv4, fc.integer({ min: 1, max: 65535 })).map(([a, p]) => `${a}:${p}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 1, max: 65535 })).map(([a, p]) => `[${a}]:${p}`),
);
const cidr = fc.oneof(
  fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([a, n]) => `${a}/${n}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([a, n]) => `${a}/${n}`),
);
const counter = fc.bigInt({ min: 0n, max: U64_MAX }).map(String);
const handshake = fc.oneof(fc.constant("0"), fc.integer({ min: 1, max: 2 ** 32 }).map(String));

interface PeerLine {
  key: string;
  psk: string;
  endpoint: string;
  allowed: string;
  handshake: string;
  rx: string;
  tx: string;
  keepalive: string;
}

const peerLine = (k: fc.Arbitrary<string>): fc.Arbitrary<PeerLine> =>
  fc.record({
    key: k,
    psk: fc.oneof(fc.constant("(none)"), key),
    endpoint,
    allowed: fc.oneof(
      fc.constant("(none)"),
      fc.array(cidr, { minLength: 1, maxLength: 3 }).map((a) => a.join(",")),
    ),
    handshake,
    rx: counter,
    tx: counter,
    keepalive: fc.oneof(fc.constant("off"), fc.integer({ min: 1, max: 65535 }).map(String)),
  });

interface Dump {
  /** Lines as columns; `peerKey` is set on peer lines, `privateKey` on interface lines. */
  lines: { cols: string[]; peerKey?: string; privateKey?: string }[];
}

/** liqo-tunnel with the peer whose key is rome's PublicKey CR for milan, and maybe other interfaces. */
const dump: fc.Arbitrary<Dump> = fc.record({
  privateKeys: fc.array(privateKey, { minLength: 2, maxLength: 2 }),
  publicKeys: fc.array(key, { minLength: 2, maxLength: 2 }),
  ports: fc.array(fc.oneof(fc.constant("off"), fc.integer({ min: 0, max: 65535 }).map(String)), {
    minLength: 2,
    maxLength: 2,
  }),
  before: fc.array(peerLine(key), { maxLength: 2 }),
  milan: peerLine(fc.constant(MILAN_KEY)),
  after: fc.array(peerLine(key), { maxLength: 2 }),
  second: fc.option(fc.array(peerLine(key), { maxLength: 2 })),
}).map((d) => {
  const lines: Dump["lines"] = [];
  const itf = (name: string, i: number) =>
    lines.push({
      cols: [name, d.privateKeys[i], d.publicKeys[i], d.ports[i], "off"],
      privateKey: d.privateKeys[i],
    });
  const peer = (name: string, p: PeerLine) =>
    lines.push({
      cols: [name, p.key, p.psk, p.endpoint, p.allowed, p.handshake, p.rx, p.tx, p.keepalive],
      peerKey: p.key,
    });
  itf("liqo-tunnel", 0);
  for (const p of [...d.before, d.milan, ...d.after]) peer("liqo-tunnel", p);
  if (d.second) {
    itf("wg0", 1);
    for (const p of d.second) peer("wg0", p);
  }
  return { lines };
});

// ---------------------------------------------------------------------------------------------
// Corruption, field by field.

const badValue = fc.oneof(
  fc.constantFrom("-1", "-0", "abc", "1e5", "0x10", "", " ", "(none)", "off", "∞", "١٢٣", "1.5"),
  fc.constantFrom(String(U64_MAX), String(U64_MAX + 1n), "99999999999999999999999999", String(2 ** 53 + 1)),
  fc.bigInt({ min: -U64_MAX, max: 2n * U64_MAX }).map(String),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "binary", maxLength: 10 }),
);

type Corruption =
  | { c: "value"; line: number; col: number; value: string }
  | { c: "newline"; line: number; col: number; at: number; crlf: boolean }
  | { c: "drop-column"; line: number; col: number }
  | { c: "extra-column"; line: number; col: number; value: string }
  | { c: "truncate"; line: number; at: number }
  | { c: "random-line"; line: number; bytes: string }
  | { c: "repeat-line"; line: number };

const corruption: fc.Arbitrary<Corruption> = fc.oneof(
  fc.record({ c: fc.constant("value"), line: fc.nat(), col: fc.nat(), value: badValue }),
  fc.record({ c: fc.constant("newline"), line: fc.nat(), col: fc.nat(), at: fc.nat(), crlf: fc.boolean() }),
  fc.record({ c: fc.constant("drop-column"), line: fc.nat(), col: fc.nat() }),
  fc.record({ c: fc.constant("extra-column"), line: fc.nat(), col: fc.nat(), value: badValue }),
  fc.record({ c: fc.constant("truncate"), line: fc.nat(), at: fc.nat() }),
  fc.record({
    c: fc.constant("random-line"),
    line: fc.nat(),
    bytes: fc.uint8Array({ maxLength: 60 }).map((b) => new TextDecoder().decode(b)),
  }),
  fc.record({ c: fc.constant("repeat-line"), line: fc.nat() }),
) as fc.Arbitrary<Corruption>;

/**
 * A dump's text after the corruptions; the peer keys whose line kept its interface and key columns
 * (`present`), and among them those whose line kept its shape too — only field values changed
 * (`intact`).
 */
function corrupt(
  d: Dump,
  cs: readonly Corruption[],
): { text: string; intact: Set<string>; present: Set<string> } {
  // Each line: its columns, or (once truncated / garbled as a whole) raw text.
  const lines = d.lines.map((l) => ({
    ...l,
    cols: [...l.cols],
    raw: null as string | null,
    keyIntact: true,
    shapeIntact: true,
  }));
  for (const c of cs) {
    const i = c.line % (lines.length + (c.c === "random-line" ? 1 : 0));
    if (c.c === "random-line") {
      lines.splice(i, 0, { cols: [], raw: c.bytes, keyIntact: false, shapeIntact: false });
      continue;
    }
    const l = lines[i];
    if (c.c === "repeat-line") {
      // A repeated line is one more copy of the same peer: it does not make the original intact.
      lines.splice(i + 1, 0, { ...l, cols: [...l.cols], peerKey: undefined, keyIntact: false });
      continue;
    }
    if (l.raw !== null) continue;
    if (c.c !== "value") l.shapeIntact = false;
    const col = "col" in c ? c.col % (l.cols.length + (c.c === "extra-column" ? 1 : 0)) : 0;
    switch (c.c) {
      case "value":
        l.cols[col] = c.value;
        if (col <= 1) l.keyIntact = false;
        break;
      case "newline": {
        const v = l.cols[col];
        const at = c.at % (v.length + 1);
        l.cols[col] = `${v.slice(0, at)}${c.crlf ? "\r\n" : "\n"}${v.slice(at)}`;
        if (col <= 1) l.keyIntact = false;
        break;
      }
      case "drop-column":
        l.cols.splice(col, 1);
        if (col <= 1) l.keyIntact = false;
        break;
      case "extra-column":
        l.cols.splice(col, 0, c.value);
        if (col <= 1) l.keyIntact = false;
        break;
      case "truncate": {
        const full = l.cols.join("\t");
        const at = c.at % (full.length + 1);
        l.raw = full.slice(0, at);
        if (at < l.cols.slice(0, 2).join("\t").length) l.keyIntact = false;
        break;
      }
    }
  }
  const text = lines.map((l) => l.raw ?? l.cols.join("\t")).join("\n") + "\n";
  const keys = (ls: typeof lines) => new Set(ls.map((l) => l.peerKey!));
  const present = lines.filter((l) => l.peerKey && l.keyIntact);
  return { text, present: keys(present), intact: keys(present.filter((l) => l.shapeIntact)) };
}

const bigintSafe = (_k: string, v: unknown) => typeof v === "bigint" ? v.toString() : v;

// ---------------------------------------------------------------------------------------------
// The properties.

Deno.test("fuzz: parseWgDump never throws on random text", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 400 }),
        fc.uint8Array({ maxLength: 400 }).map((b) => new TextDecoder().decode(b)),
        fc.array(fc.array(fc.string({ maxLength: 12 }), { maxLength: 11 }), { maxLength: 8 }).map((ls) =>
          ls.map((l) => l.join("\t")).join("\n")
        ),
      ),
      (s) => {
        const parsed = parseWgDump(s, BASE_TIME.getTime());
        JSON.stringify(toSample(parsed, BASE_TIME.getTime()), bigintSafe);
      },
    ),
    fuzzParams(300),
  );
});

Deno.test("fuzz: corrupted dumps never lose an intact peer silently and never keep a private key", () => {
  fc.assert(
    fc.property(dump, fc.array(corruption, { maxLength: 4 }), (d, cs) => {
      const { text: dumpText, intact, present } = corrupt(d, cs);
      const parsed = parseWgDump(dumpText, BASE_TIME.getTime());
      const json = JSON.stringify(parsed, bigintSafe);
      for (const l of d.lines) {
        if (l.privateKey) {
          assert.ok(!json.includes(l.privateKey), "a private key appears in the parse result");
        }
      }
      const kept = new Set(parsed.interfaces.flatMap((i) => i.peers.map((p) => p.publicKey)));
      // Only field values broken: the peer is kept (the bad fields named in `unreadable`).
      for (const k of intact) assert.ok(kept.has(k), `peer ${k} lost: ${parsed.problems.join("; ")}`);
      // Line broken, cut or re-columned around an intact key: the peer is kept, or the parse says that
      // some line could not be read (a cut peer line cannot always be told from a cut interface line,
      // which carries the private key, so it may be skipped — but never silently).
      const unreadable = parsed.interfaces.some((i) => i.unreadableLines?.length) ||
        (parsed.unreadableLines?.length ?? 0) > 0;
      for (const k of present) {
        assert.ok(kept.has(k) || unreadable, `peer ${k} silently lost: ${parsed.problems.join("; ")}`);
      }
    }),
    fuzzParams(400),
  );
});

Deno.test("fuzz: no false TUN-04 when the PublicKey's peer line is intact", async () => {
  const objects = await rome();
  await fc.assert(
    fc.asyncProperty(dump, fc.array(corruption, { maxLength: 3 }), async (d, cs) => {
      const { text: dumpText, present } = corrupt(d, cs);
      if (!present.has(MILAN_KEY)) return;
      const t0 = BASE_TIME.getTime();
      const parsed = parseWgDump(dumpText, t0);
      const sample = toSample(parsed, t0);
      const probes = scriptedProbes({
        wireguard: (_c, ns, pod): WgEvidence =>
          pod === ROME_POD
            ? {
              ok: true,
              namespace: ns,
              pod,
              via: "api",
              first: sample,
              second: { ...sample, takenAt: t0 + 3000 },
              mtu: { "liqo-tunnel": 1340 },
              notes: parsed.problems,
            }
            : { ok: false, namespace: ns, pod, reason: "missing", message: "no such pod" },
      });
      const o = await run("TUN-04", structuredClone(objects), { probes });
      assert.notEqual(o.status, "fail", `false TUN-04: ${text(o)}`);
    }),
    fuzzParams(200),
  );
});
