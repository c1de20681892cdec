import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { certificateDerParts, parseCertificate } from "../../probes/x509.ts";
import {
  baseRoot,
  buildClusterConfig,
  DEFAULT_REFERENCE_TIME,
  generateTlsMaterial,
  loadScenario,
  parseObjects,
  readText,
  reissueCertificate,
  shiftCertificates,
  shiftTimestamps,
} from "../../fakekube/mod.ts";
import { type Loose, loose } from "../support/fixtures.ts";

const DAY_MS = 86_400_000;
const REF = Date.parse(DEFAULT_REFERENCE_TIME);

const identities = (objs: K8sObject[]): Loose[] => objs.filter((o) => o.kind === "Identity").map(loose);

function decodesToPem(b64: string): boolean {
  return atob(b64).startsWith("-----BEGIN CERTIFICATE-----\n");
}

Deno.test("cert shift: healthy-consumer Identity certificates follow now (+400 days)", async () => {
  const s = await loadScenario("healthy-consumer");
  const before = await buildClusterConfig(s, "rome", new Date(REF));
  const after = await buildClusterConfig(s, "rome", new Date(REF + 400 * DAY_MS));
  const ids0 = identities(before.objects), ids1 = identities(after.objects);
  assert.ok(ids0.length >= 2, "healthy-consumer should serve Identities");
  assert.equal(ids1.length, ids0.length);
  for (const [i, id0] of ids0.entries()) {
    const id1 = ids1[i];
    assert.equal(id1.metadata.name, id0.metadata.name);
    for (const field of ["signedCRT", "ca"]) {
      const orig: string = id0.spec.authParams[field];
      const shifted: string = id1.spec.authParams[field];
      const what = `${id0.metadata.name} ${field}`;
      assert.notEqual(shifted, orig, what);
      assert.ok(decodesToPem(shifted), `${what}: still base64 of PEM`);
      const a = parseCertificate(orig), b = parseCertificate(shifted);
      assert.equal(b.notAfter.getTime() - a.notAfter.getTime(), 400 * DAY_MS, what);
      assert.equal(b.notBefore.getTime() - a.notBefore.getTime(), 400 * DAY_MS, what);
      assert.equal(b.subject, a.subject, what);
      assert.equal(b.issuer, a.issuer, what);
      assert.equal(b.serialHex, a.serialHex, what);
      const pa = certificateDerParts(orig), pb = certificateDerParts(shifted);
      assert.deepEqual(pb.subject, pa.subject, `${what}: subject DER bytes`);
      assert.deepEqual(pb.issuer, pa.issuer, `${what}: issuer DER bytes`);
      assert.deepEqual(pb.rest, pa.rest, `${what}: key and extensions`);
    }
  }
  // The same certificate served in several objects stays one certificate.
  const cas = new Set(ids1.map((o) => o.spec.authParams.ca));
  assert.equal(cas.size, new Set(ids0.map((o) => o.spec.authParams.ca)).size);
  // Everything that is not a certificate (CSRs, public keys, other strings) is untouched.
  const strip = (objs: K8sObject[]): string =>
    JSON.stringify(
      objs,
      (_k, v) => typeof v === "string" && /^LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0t/.test(v) ? "" : v,
    );
  assert.equal(strip(after.objects), strip(shiftTimestamps(before.objects, 400 * DAY_MS)));
  const csrs = (objs: K8sObject[]): unknown[] =>
    objs.map((o) => loose(o).spec?.csr).filter((x) => x !== undefined);
  assert.deepEqual(csrs(after.objects), csrs(before.objects));
});

Deno.test("cert shift: with now == referenceTime the served certificates are the file's bytes", async () => {
  const s = await loadScenario("healthy-consumer");
  const cfg = await buildClusterConfig(s, "rome", new Date(REF));
  const url = new URL("rome.yaml", baseRoot());
  const file = parseObjects(await readText(url), url.href);
  const ids = identities(cfg.objects);
  assert.ok(ids.length > 0);
  for (const id of ids) {
    const orig = identities(file).find((o) => o.metadata.name === id.metadata.name);
    assert.equal(id.spec.authParams.signedCRT, orig?.spec.authParams.signedCRT);
    assert.equal(id.spec.authParams.ca, orig?.spec.authParams.ca);
  }
  const v = { a: ["x"] };
  assert.equal(await shiftCertificates(v, 0), v);
});

Deno.test("cert shift: cp-identity-expiring still expires 10 days after now (now = 2027-06-01)", async () => {
  const s = await loadScenario("cp-identity-expiring");
  const now = new Date("2027-06-01T00:00:00Z");
  const ref = await buildClusterConfig(s, "rome", new Date(REF));
  const cfg = await buildClusterConfig(s, "rome", now);
  for (const name of ["controlplane-milan-8d1f03", "resourceslice-milan-8d1f03"]) {
    const at = (objs: K8sObject[]): Date =>
      parseCertificate(identities(objs).find((o) => o.metadata.name === name)!.spec.authParams.signedCRT)
        .notAfter;
    const leftAtRef = at(ref.objects).getTime() - REF;
    const left = at(cfg.objects).getTime() - now.getTime();
    assert.equal(left, leftAtRef, name);
    // "expires in 10 days" (2026-12-10T02:08:54Z at the reference time): 9 whole days and a bit left.
    assert.ok(left > 9 * DAY_MS && left <= 10 * DAY_MS, `${name}: ${left / DAY_MS} days left`);
  }
});

Deno.test("cert shift: raw PEM stays PEM, other blocks and junk are kept, dates past 2049 work", async () => {
  const { caPem, keyPem } = await generateTlsMaterial();
  const csr = "-----BEGIN CERTIFICATE REQUEST-----\nMIIBAA==\n-----END CERTIFICATE REQUEST-----\n";
  const junk = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
  const bundle = `# bundle\n${keyPem}${caPem}${csr}${junk}`;
  const wrapped = btoa(caPem).match(/.{1,76}/g)!.join("\n") + "\n";
  const delta = 30 * 365 * DAY_MS;
  const input = { bundle, csrOnly: btoa(csr), wrapped, n: 3, none: null, list: [caPem] };
  const out = await shiftCertificates(input, delta);
  assert.equal(out.n, 3);
  assert.equal(out.none, null);
  assert.equal(out.csrOnly, input.csrOnly);
  assert.equal(
    out.list[0],
    out.bundle.slice(out.bundle.indexOf("-----BEGIN CERTIFICATE-----")).split(csr)[0],
  );
  assert.ok(out.bundle.startsWith(`# bundle\n${keyPem}-----BEGIN CERTIFICATE-----\n`));
  assert.ok(out.bundle.endsWith(`-----END CERTIFICATE-----\n${csr}${junk}`));
  assert.notEqual(out.list[0], caPem);
  const a = parseCertificate(caPem), b = parseCertificate(out.list[0]);
  assert.equal(b.notAfter.getTime() - a.notAfter.getTime(), Math.floor(delta / 1000) * 1000);
  assert.ok(b.notAfter.getUTCFullYear() >= 2050, "GeneralizedTime range");
  assert.equal(b.subject, a.subject);
  // Base64 keeps its line wrapping.
  assert.match(out.wrapped, /^([A-Za-z0-9+/=]{76}\n)+[A-Za-z0-9+/=]{1,76}\n$/);
  assert.equal(atob(out.wrapped.replace(/\n/g, "")), out.list[0]);
  // Re-issuing is deterministic within a process.
  const der = Uint8Array.from(atob(caPem.split("\n").slice(1, -2).join("")), (c) => c.charCodeAt(0));
  assert.deepEqual(await reissueCertificate(der, 1000), await reissueCertificate(der, 1000));
});
