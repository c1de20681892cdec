import assert from "node:assert/strict";
import { parse } from "yaml";
import { CertificateParseError, parseCertificate, parseCertificates, tryParseCertificate } from "./x509.ts";

interface IdentityDoc {
  kind?: string;
  metadata?: { name?: string };
  spec?: { authParams?: { signedCRT?: string; ca?: string } };
}

function identities(): IdentityDoc[] {
  const text = Deno.readTextFileSync(new URL("../testdata/base/rome.yaml", import.meta.url));
  const docs: IdentityDoc[] = [];
  for (const chunk of text.split(/^---$/m)) {
    if (!chunk.includes("kind: Identity")) continue;
    const doc = parse(chunk) as IdentityDoc;
    if (doc?.kind === "Identity") docs.push(doc);
  }
  return docs;
}

function b64decode(s: string): string {
  return atob(s);
}

Deno.test("parses Liqo Identity signedCRT (base64 of PEM) from testdata", () => {
  const ids = identities();
  assert.ok(ids.length >= 2);
  const byName = new Map(ids.map((d) => [d.metadata?.name, d]));
  const cp = parseCertificate(byName.get("controlplane-milan-8d1f03")!.spec!.authParams!.signedCRT!);
  assert.equal(cp.subject, "CN=rome-4b2a9e,O=liqo.io");
  assert.equal(cp.issuer, "CN=kubernetes");
  assert.equal(cp.commonName, "rome-4b2a9e");
  assert.deepEqual(cp.organizations, ["liqo.io"]);
  assert.equal(cp.notBefore.toISOString(), "2026-11-30T02:08:54.000Z");
  assert.equal(cp.notAfter.toISOString(), "2027-11-30T02:08:54.000Z");
  assert.equal(cp.serialHex, "07D1");
  for (const id of ids) {
    const r = tryParseCertificate(id.spec!.authParams!.signedCRT!);
    assert.equal(r.ok, true, String(id.metadata?.name));
  }
});

Deno.test("accepts PEM text, PEM bytes, DER bytes and base64 DER", () => {
  const id = identities()[0];
  const pem = b64decode(id.spec!.authParams!.signedCRT!);
  const expected = parseCertificate(id.spec!.authParams!.signedCRT!);
  assert.deepEqual(parseCertificate(pem), expected);
  assert.deepEqual(parseCertificate(new TextEncoder().encode(pem)), expected);
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  assert.deepEqual(parseCertificate(body), expected);
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  assert.deepEqual(parseCertificate(der), expected);
  // CA bundle: two certificates.
  const ca = b64decode(id.spec!.authParams!.ca!);
  const both = parseCertificates(`${pem}\n${ca}`);
  assert.equal(both.length, 2);
  assert.equal(both[1].subject, "CN=kubernetes");
  assert.ok(both[1].notAfter.getTime() > both[0].notAfter.getTime());
});

Deno.test("malformed input gives a CertificateParseError", () => {
  const pem = b64decode(identities()[0].spec!.authParams!.signedCRT!);
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  const cases: [string | Uint8Array, CertificateParseError["kind"], RegExp][] = [
    ["", "empty", /empty/],
    ["   ", "empty", /empty/],
    [new Uint8Array(), "empty", /empty/],
    ["not base64 at all!", "encoding", /neither PEM nor base64/],
    [btoa("hello world"), "encoding", /neither PEM nor DER/],
    ["-----BEGIN CERTIFICATE-----\nMIIB", "encoding", /no complete/],
    ["-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----", "encoding", /not valid base64/],
    ["-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "encoding", /no complete/],
    [der.subarray(0, 60), "structure", /truncated/],
    [der.subarray(0, 1), "structure", /truncated/],
    [Uint8Array.of(0x30, 0x80, 0, 0), "structure", /indefinite/],
    [Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01), "structure", /TBSCertificate/],
    [Uint8Array.of(0x30, 0x05, 0x30, 0x03, 0x04, 0x01, 0x01), "structure", /serial/],
  ];
  for (const [input, kind, re] of cases) {
    assert.throws(() => parseCertificate(input), (e: unknown) => {
      assert.ok(e instanceof CertificateParseError, String(e));
      assert.equal(e.kind, kind, `${e.message} for ${String(input).slice(0, 30)}`);
      assert.match(e.message, re);
      return true;
    });
  }
  // Wrong tag: the TBSCertificate SEQUENCE turned into a SET.
  const wrong = der.slice();
  wrong[4] = 0x31; // TBSCertificate tag → SET
  assert.throws(() => parseCertificate(wrong), /TBSCertificate: expected tag 0x30, found 0x31/);
  const r = tryParseCertificate("garbage!");
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error, /neither PEM nor base64/);
});

Deno.test("GeneralizedTime and escaped names", () => {
  // Hand-built minimal TBS: version omitted, serial 0x00ff, sigalg, issuer CN="a,b", GeneralizedTime validity.
  const enc = new TextEncoder();
  const tlv = (tag: number, ...parts: Uint8Array[]): Uint8Array => {
    const len = parts.reduce((n, p) => n + p.length, 0);
    const head = len < 128 ? [tag, len] : [tag, 0x81, len];
    const out = new Uint8Array(head.length + len);
    out.set(head);
    let o = head.length;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };
  const cn = (v: string, tag = 0x0c) =>
    tlv(0x31, tlv(0x30, tlv(0x06, Uint8Array.of(0x55, 0x04, 0x03)), tlv(tag, enc.encode(v))));
  const tbs = tlv(
    0x30,
    tlv(0x02, Uint8Array.of(0x00, 0xff)),
    tlv(0x30, tlv(0x06, Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02))),
    tlv(0x30, cn("a,b")),
    tlv(0x30, tlv(0x18, enc.encode("20500101000000Z")), tlv(0x17, enc.encode("491231235959Z"))),
    tlv(0x30, cn(" x#", 0x13)),
  );
  const cert = tlv(0x30, tbs, tlv(0x30), tlv(0x03, Uint8Array.of(0)));
  const info = parseCertificate(cert);
  assert.equal(info.issuer, "CN=a\\,b");
  assert.equal(info.subject, "CN=\\ x#");
  assert.equal(info.serialHex, "FF");
  assert.equal(info.notBefore.toISOString(), "2050-01-01T00:00:00.000Z");
  assert.equal(info.notAfter.toISOString(), "2049-12-31T23:59:59.000Z");
});
