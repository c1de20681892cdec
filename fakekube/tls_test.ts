import assert from "node:assert/strict";
import { derInteger, derOid, generateTlsMaterial } from "./tls.ts";

Deno.test("tls: DER primitives", () => {
  assert.deepEqual(derOid("1.2.840.10045.4.3.2"), Uint8Array.of(6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3, 2));
  assert.deepEqual(derInteger(Uint8Array.of(0, 0, 0x80)), Uint8Array.of(2, 2, 0, 0x80));
  assert.deepEqual(derInteger(Uint8Array.of(0, 0)), Uint8Array.of(2, 1, 0));
});

Deno.test("tls: generated certificates are PEM and a fresh CA each time", async () => {
  const a = await generateTlsMaterial();
  const b = await generateTlsMaterial();
  assert.match(a.caPem, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
  assert.match(a.certPem, /^-----BEGIN CERTIFICATE-----\n/);
  assert.match(a.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.notEqual(a.caPem, b.caPem);
});
