/**
 * TLS material for the fake API server, made with Web Crypto only (no openssl, no files): an ECDSA
 * P-256 CA and a server certificate for 127.0.0.1/localhost signed by it, encoded with a small
 * hand-written DER encoder. Also re-issues scenario certificates with a shifted validity window
 * ({@link shiftPemCertificates}).
 */
import { CertificateParseError, certificateParts } from "./der.ts";

/** PEM-encoded CA certificate, server certificate and server private key (PKCS#8). */
export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

// ---------------------------------------------------------------------------------------------
// Minimal DER encoder

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function encodeLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n = Math.floor(n / 256);
  }
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

/** Encodes one DER TLV with the given tag byte. */
export function tlv(tag: number, content: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(tag), encodeLength(content.length), content);
}

const seq = (...parts: Uint8Array[]): Uint8Array => tlv(0x30, concat(...parts));
const set = (...parts: Uint8Array[]): Uint8Array => tlv(0x31, concat(...parts));
const explicit = (n: number, content: Uint8Array): Uint8Array => tlv(0xa0 + n, content);
const octets = (b: Uint8Array): Uint8Array => tlv(0x04, b);
const bitString = (b: Uint8Array, unusedBits = 0): Uint8Array =>
  tlv(0x03, concat(Uint8Array.of(unusedBits), b));
const utf8 = (s: string): Uint8Array => tlv(0x0c, new TextEncoder().encode(s));
const bool = (v: boolean): Uint8Array => tlv(0x01, Uint8Array.of(v ? 0xff : 0));

/** Encodes a non-negative big-endian integer. */
export function derInteger(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  let b = bytes.slice(i);
  if (b.length === 0) b = Uint8Array.of(0);
  if (b[0] & 0x80) b = concat(Uint8Array.of(0), b);
  return tlv(0x02, b);
}

/** Encodes a dotted object identifier. */
export function derOid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    let v = Math.floor(arc / 128);
    while (v > 0) {
      chunk.unshift((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(out));
}

function derTime(d: Date): Uint8Array {
  const p = (n: number): string => String(n).padStart(2, "0");
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${
    p(d.getUTCSeconds())
  }Z`;
  const y = d.getUTCFullYear();
  // RFC 5280 4.1.2.5: UTCTime for 1950-2049, GeneralizedTime otherwise.
  if (y >= 1950 && y < 2050) return tlv(0x17, new TextEncoder().encode(`${p(y % 100)}${rest}`));
  return tlv(0x18, new TextEncoder().encode(`${y}${rest}`));
}

// ---------------------------------------------------------------------------------------------
// X.509

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  subjectAltName: "2.5.29.17",
  subjectKeyId: "2.5.29.14",
  authorityKeyId: "2.5.29.35",
};

function name(cn: string): Uint8Array {
  return seq(
    set(seq(derOid(OID.organization), utf8("flyingfish fakekube"))),
    set(seq(derOid(OID.commonName), utf8(cn))),
  );
}

function extension(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? seq(derOid(oid), bool(true), octets(value)) : seq(derOid(oid), octets(value));
}

/** Converts a Web Crypto ECDSA signature (r || s) to a DER Ecdsa-Sig-Value. */
function ecdsaSigToDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  return seq(derInteger(raw.slice(0, half)), derInteger(raw.slice(half)));
}

function base64Of(der: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < der.length; i += 0x8000) bin += String.fromCharCode(...der.subarray(i, i + 0x8000));
  return btoa(bin);
}

function toPem(label: string, der: Uint8Array): string {
  const lines = base64Of(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;

async function keyId(pub: CryptoKey): Promise<Uint8Array> {
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pub));
  return new Uint8Array(await crypto.subtle.digest("SHA-1", raw));
}

interface CertParams {
  subject: string;
  issuer: string;
  subjectKey: CryptoKey;
  signingKey: CryptoKey;
  ski: Uint8Array;
  aki: Uint8Array;
  extensions: Uint8Array[];
}

async function makeCert(p: CertParams): Promise<Uint8Array> {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f;
  serial[0] |= 0x01;
  const now = Date.now();
  const algId = seq(derOid(OID.ecdsaWithSha256));
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", p.subjectKey));
  const tbs = seq(
    explicit(0, derInteger(Uint8Array.of(2))),
    derInteger(serial),
    algId,
    name(p.issuer),
    seq(derTime(new Date(now - 3600_000)), derTime(new Date(now + 365 * 86400_000))),
    name(p.subject),
    spki,
    explicit(
      3,
      seq(
        ...p.extensions,
        extension(OID.subjectKeyId, false, octets(p.ski)),
        extension(OID.authorityKeyId, false, seq(tlv(0x80, p.aki))),
      ),
    ),
  );
  const sig = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, p.signingKey, tbs as BufferSource),
  );
  return seq(tbs, algId, bitString(ecdsaSigToDer(sig)));
}

/** Generates a fresh CA and a server certificate (SAN IP 127.0.0.1, DNS localhost) signed by it. */
export async function generateTlsMaterial(): Promise<TlsMaterial> {
  const ca = await crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]) as CryptoKeyPair;
  const srv = await crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]) as CryptoKeyPair;
  const caKid = await keyId(ca.publicKey);
  const srvKid = await keyId(srv.publicKey);
  const caName = "fakekube-ca";

  const caDer = await makeCert({
    subject: caName,
    issuer: caName,
    subjectKey: ca.publicKey,
    signingKey: ca.privateKey,
    ski: caKid,
    aki: caKid,
    extensions: [
      extension(OID.basicConstraints, true, seq(bool(true))),
      // keyCertSign (bit 5) + cRLSign (bit 6)
      extension(OID.keyUsage, true, bitString(Uint8Array.of(0x06), 1)),
    ],
  });

  const san = seq(tlv(0x87, Uint8Array.of(127, 0, 0, 1)), tlv(0x82, new TextEncoder().encode("localhost")));
  const srvDer = await makeCert({
    subject: "fakekube-apiserver",
    issuer: caName,
    subjectKey: srv.publicKey,
    signingKey: ca.privateKey,
    ski: srvKid,
    aki: caKid,
    extensions: [
      extension(OID.basicConstraints, true, seq()),
      // digitalSignature (bit 0)
      extension(OID.keyUsage, true, bitString(Uint8Array.of(0x80), 7)),
      extension(OID.extKeyUsage, false, seq(derOid(OID.serverAuth))),
      extension(OID.subjectAltName, false, san),
    ],
  });

  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", srv.privateKey));
  return {
    caPem: toPem("CERTIFICATE", caDer),
    certPem: toPem("CERTIFICATE", srvDer),
    keyPem: toPem("PRIVATE KEY", pkcs8),
  };
}

// ---------------------------------------------------------------------------------------------
// Re-issuing scenario certificates with a shifted validity window

/**
 * One throw-away P-256 key per process, made on first use, signs every re-issued certificate.
 * FlyingFish never verifies certificate signatures (the product reads only names and dates), so
 * the re-issued certificates need not chain to anything; they only have to be well-formed X.509.
 */
let reissueKey: Promise<CryptoKey> | null = null;

function reissueSigningKey(): Promise<CryptoKey> {
  reissueKey ??= (crypto.subtle.generateKey(ECDSA, false, ["sign"]) as Promise<CryptoKeyPair>)
    .then((k) => k.privateKey);
  return reissueKey;
}

/**
 * Re-issued certificates by "deltaMs|base64 of the original DER". ECDSA signatures are randomised, so
 * without this the same certificate served twice (e.g. a CA in several objects, or in both clusters
 * of a scenario) would come out as different bytes. Bounded: cleared when it grows large.
 */
const reissued = new Map<string, Promise<Uint8Array>>();
const REISSUED_MAX = 512;

/**
 * Re-issues the DER certificate `der` with notBefore and notAfter moved by `deltaMs` (truncated to
 * whole seconds, like the scenario timestamps). Version, serial, issuer and subject names, public key
 * and extensions are copied verbatim; the signature (ecdsa-with-SHA256) is made with a throw-away key
 * made once per process, so it does not verify against the original issuer. Identical inputs
 * give identical bytes within a process. Rejects with CertificateParseError when `der` is not a
 * certificate.
 */
export function reissueCertificate(der: Uint8Array, deltaMs: number): Promise<Uint8Array> {
  const key = `${deltaMs}|${base64Of(der)}`;
  const hit = reissued.get(key);
  if (hit) return hit;
  const job = (async (): Promise<Uint8Array> => {
    const parts = certificateParts(der);
    const algId = seq(derOid(OID.ecdsaWithSha256));
    const tbs = seq(
      ...(parts.version ? [parts.version] : []),
      parts.serial,
      algId,
      parts.issuer,
      seq(
        derTime(new Date(parts.notBefore.getTime() + deltaMs)),
        derTime(new Date(parts.notAfter.getTime() + deltaMs)),
      ),
      parts.subject,
      ...parts.rest,
    );
    const sig = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        await reissueSigningKey(),
        tbs as BufferSource,
      ),
    );
    return seq(tbs, algId, bitString(ecdsaSigToDer(sig)));
  })();
  if (reissued.size >= REISSUED_MAX) reissued.clear();
  reissued.set(key, job);
  job.catch(() => reissued.delete(key));
  return job;
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]*?)-----END CERTIFICATE-----/g;

/**
 * Re-issues every `CERTIFICATE` block of PEM text with its validity moved by `deltaMs` (see
 * {@link reissueCertificate}); other blocks (keys, CSRs), text around blocks, and blocks that do not
 * parse as certificates are kept as they are. Returns `pem` itself when `deltaMs` is 0.
 */
export async function shiftPemCertificates(pem: string, deltaMs: number): Promise<string> {
  if (deltaMs === 0) return pem;
  const blocks = [...pem.matchAll(CERT_BLOCK)];
  if (blocks.length === 0) return pem;
  const replacements = await Promise.all(blocks.map(async (m): Promise<string> => {
    let der: Uint8Array;
    try {
      der = Uint8Array.from(atob(m[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    } catch {
      return m[0]; // not base64: serve it unchanged
    }
    try {
      return toPem("CERTIFICATE", await reissueCertificate(der, deltaMs)).trimEnd();
    } catch (e) {
      if (e instanceof CertificateParseError) return m[0]; // not a certificate: serve it unchanged
      throw e;
    }
  }));
  let out = "";
  let last = 0;
  blocks.forEach((m, i) => {
    out += pem.slice(last, m.index) + replacements[i];
    last = m.index + m[0].length;
  });
  return out + pem.slice(last);
}
