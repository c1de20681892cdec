/** Unreadable `wg show` fields make the tunnel checks that read them unknown, quoting the parse problem. */
import assert from "node:assert/strict";
import { BASE_TIME, scriptedProbes } from "../../tests/support/fixtures.ts";
import { rome, ROME_POD, run, text } from "../../tests/support/tunnel_checks.ts";
import type { WgEvidence } from "../../probes/hub.ts";
import { parseWgDump, toSample } from "../../probes/wireguard_dump.ts";

const PRIV = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
/** rome's gateway key and the key of rome's PublicKey CR for milan (tests/support/tunnel_checks.ts). */
const ROME_KEY = "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=";
const MILAN_KEY = "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=";
const OTHER_KEY = "TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=";

const T0 = BASE_TIME.getTime();
const HS = String(Math.floor(T0 / 1000) - 20);

function peer(o: { key?: string; hs?: string; rx?: string; tx?: string; endpoint?: string } = {}): string {
  return [
    "liqo-tunnel",
    o.key ?? MILAN_KEY,
    "(none)",
    o.endpoint ?? "203.0.113.50:51840",
    "0.0.0.0/0",
    o.hs ?? HS,
    o.rx ?? "1000",
    o.tx ?? "2000",
    "off",
  ].join("\t");
}

/** Rome's gateway answering two dumps (the second defaults to counters moved by 360 B). */
function dumps(first: string[], second?: string[]) {
  const itf = ["liqo-tunnel", PRIV, ROME_KEY, "51840", "off"].join("\t");
  const sample = (lines: string[], at: number) => {
    const parsed = parseWgDump([itf, ...lines].join("\n") + "\n", at);
    return { sample: toSample(parsed, at), notes: parsed.problems };
  };
  const a = sample(first, T0);
  const b = sample(second ?? first.map((l) => l.replace("\t1000\t2000\t", "\t1360\t2360\t")), T0 + 3000);
  return scriptedProbes({
    wireguard: (_c, ns, pod): WgEvidence =>
      pod === ROME_POD
        ? {
          ok: true,
          namespace: ns,
          pod,
          via: "api",
          first: a.sample,
          second: b.sample,
          mtu: { "liqo-tunnel": 1340 },
          notes: [...a.notes.map((n) => `first sample: ${n}`), ...b.notes.map((n) => `second sample: ${n}`)],
        }
        : { ok: false, namespace: ns, pod, reason: "missing", message: "no such pod" },
  });
}

Deno.test("tunnel checks on a healthy parsed dump pass", async () => {
  const p = dumps([peer()]);
  for (const id of ["TUN-02", "TUN-03", "TUN-04"]) {
    const o = await run(id, await rome(), { probes: p });
    assert.equal(o.status, "pass", `${id}: ${text(o)}`);
  }
});

Deno.test("unreadable latest-handshake: TUN-04 still passes on the key, TUN-02 unknown quoting it", async () => {
  for (const hs of ["-1", "abc"]) {
    const p = dumps([peer({ hs })]);
    const t4 = await run("TUN-04", await rome(), { probes: p });
    assert.equal(t4.status, "pass", text(t4));
    const t2 = await run("TUN-02", await rome(), { probes: p });
    assert.equal(t2.status, "unknown", text(t2));
    assert.match(t2.summary, new RegExp(`unreadable latest-handshake: ${JSON.stringify(hs)}`));
    assert.equal((await run("TUN-03", await rome(), { probes: p })).status, "pass");
  }
});

Deno.test("unreadable counters: TUN-03 unknown quoting them; 2^64-1 is a reading that moves", async () => {
  const p = dumps([peer()], [peer({ rx: "18446744073709551616" })]);
  const t3 = await run("TUN-03", await rome(), { probes: p });
  assert.equal(t3.status, "unknown", text(t3));
  assert.match(t3.summary, /unreadable transfer-rx: "18446744073709551616" \(above 2\^64-1\)/);
  assert.equal((await run("TUN-02", await rome(), { probes: p })).status, "pass");
  assert.equal((await run("TUN-04", await rome(), { probes: p })).status, "pass");

  const huge = dumps([peer({ rx: "18446744073709551255" })], [
    peer({ rx: "18446744073709551615", tx: "2360" }),
  ]);
  const moving = await run("TUN-03", await rome(), { probes: huge });
  assert.equal(moving.status, "pass", text(moving));
  assert.match(text(moving), /rx \+360 B, tx \+360 B/);
});

Deno.test("a newline in the endpoint or a missing column keeps the key: TUN-04 passes", async () => {
  const cols = peer().split("\t");
  for (
    const lines of [
      [peer({ endpoint: "203.0.113.50\n:51840" })],
      [cols.filter((_, i) => i !== 5).join("\t")],
    ]
  ) {
    const o = await run("TUN-04", await rome(), { probes: dumps(lines) });
    assert.equal(o.status, "pass", text(o));
  }
  const missing = dumps([cols.filter((_, i) => i !== 5).join("\t")]);
  const t2 = await run("TUN-02", await rome(), { probes: missing });
  assert.equal(t2.status, "unknown");
  assert.match(t2.summary, /latest-handshake: columns cannot be matched/);
  assert.equal((await run("TUN-03", await rome(), { probes: missing })).status, "unknown");
});

Deno.test("a peer line whose key cannot be read: TUN-04 unknown (not fail), TUN-02/03 unknown", async () => {
  const keyless = ["liqo-tunnel", "(none)", ...peer().split("\t").slice(2)].join("\t");
  const p = dumps([keyless]);
  const t4 = await run("TUN-04", await rome(), { probes: p });
  assert.equal(t4.status, "unknown", text(t4));
  assert.match(t4.summary, /key presence cannot be decided/);
  assert.match(text(t4), /line 2: skipped, peer without a readable public key on liqo-tunnel/);
  for (const id of ["TUN-02", "TUN-03"]) {
    const o = await run(id, await rome(), { probes: p });
    assert.equal(o.status, "unknown", `${id}: ${text(o)}`);
  }
  // A readable line naming another key next to an unreadable one: still undecidable.
  const mixed = await run("TUN-04", await rome(), { probes: dumps([peer({ key: OTHER_KEY }), "x\ty"]) });
  assert.equal(mixed.status, "unknown", text(mixed));
  // Everything readable and the key absent: the real finding stays a fail.
  const absent = await run("TUN-04", await rome(), { probes: dumps([peer({ key: OTHER_KEY })]) });
  assert.equal(absent.status, "fail");
  assert.match(absent.summary, /wg peers do not include/);
});

Deno.test("a peer line cut to the interface's column count: TUN-04 unknown, never a false fail", async () => {
  // Shrunk by tests/fuzz/wg_fuzz_test.ts: `liqo-tunnel KEY (none) (none) (none` was read as a second
  // interface line, dropping the peer without a note (TUN-04: "wg peers do not include").
  const cut = peer({ endpoint: "(none)" }).split("\t").slice(0, 4).join("\t") + "\t(none";
  const t4 = await run("TUN-04", await rome(), { probes: dumps([cut]) });
  assert.equal(t4.status, "unknown", text(t4));
  assert.match(t4.summary, /key presence cannot be decided/);
});
