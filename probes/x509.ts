/**
 * Minimal X.509 reader: enough DER/ASN.1 to pull subject, issuer, validity and serial out of a
 * certificate, without spawning openssl. Accepts PEM, base64 of PEM (how Liqo stores
 * `spec.authParams.signedCRT` and kubeconfigs store `client-certificate-data`), base64 of DER, or
 * raw DER bytes. Signatures are not verified.
 */

/** Fields of a certificate that diagnosis needs. */
export interface CertificateInfo {
  /** RFC 4514 string, most specific RDN first, e.g. "CN=rome-4b2a9e,O=liqo.io". */
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** Serial number in upper-case hex without leading zero bytes, e.g. "07D1". */
  serialHex: string;
  /** Subject common name, or null. */
  commonName: string | null;
  /** Subject organisations (O=), in certificate order. */
  organizations: string[];
}

/** Why a certificate could not be read. */
export type CertificateErrorKind = "empty" | "encoding" | "structure";

/** Thrown by {@link parseCertificate} when the input is not a readable certificate. */
export class CertificateParseError extends Error {
  /** "empty" (no input), "encoding" (not PEM/base64/DER), "structure" (bad ASN.1). */
  readonly kind: CertificateErrorKind;
  /** Creates an error of the given kind. */
  constructor(kind: CertificateErrorKind, message: string) {
    super(message);
    this.name = "CertificateParseError";
    this.kind = kind;
  }
}

interface Tlv {
  /** Full identifier octet (class + constructed bit + tag number when < 31). */
  tag: number;
  /** Tag number (handles the multi-byte form). */
  tagNumber: number;
  tagClass: number;
  constructed: boolean;
  start: number;
  contentStart: number;
  end: number;
}

function fail(message: string): never {
  throw new CertificateParseError("structure", message);
}

function readTlv(buf: Uint8Array, pos: number, limit: number, what: string): Tlv {
  if (pos >= limit) fail(`truncated: expected ${what}`);
  const start = pos;
  const tag = buf[pos++];
  let tagNumber = tag & 0x1f;
  if (tagNumber === 0x1f) {
    tagNumber = 0;
    for (let i = 0;; i++) {
      if (pos >= limit || i > 4) fail(`truncated or oversized tag in ${what}`);
      const b = buf[pos++];
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (pos >= limit) fail(`truncated: no length for ${what}`);
  let len = buf[pos++];
  if (len === 0x80) fail(`indefinite length in ${what} (not DER)`);
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n > 4) fail(`length too large in ${what}`);
    if (pos + n > limit) fail(`truncated length in ${what}`);
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[pos++];
  }
  if (pos + len > limit) fail(`truncated: ${what} claims ${len} bytes, ${limit - pos} left`);
  return {
    tag,
    tagNumber,
    tagClass: tag >> 6,
    constructed: (tag & 0x20) !== 0,
    start,
    contentStart: pos,
    end: pos + len,
  };
}

function expect(buf: Uint8Array, pos: number, limit: number, tag: number, what: string): Tlv {
  const t = readTlv(buf, pos, limit, what);
  if (t.tag !== tag) {
    fail(`${what}: expected tag 0x${hex2(tag)}, found 0x${hex2(t.tag)}`);
  }
  return t;
}

function children(buf: Uint8Array, parent: Tlv, what: string): Tlv[] {
  const out: Tlv[] = [];
  let pos = parent.contentStart;
  while (pos < parent.end) {
    const t = readTlv(buf, pos, parent.end, what);
    out.push(t);
    pos = t.end;
  }
  return out;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, "0");
}

function decodeOid(bytes: Uint8Array): string {
  if (bytes.length === 0) fail("empty OID");
  const parts: number[] = [];
  let v = 0;
  for (const b of bytes) {
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      parts.push(v);
      v = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const a = first < 40 ? 0 : first < 80 ? 1 : 2;
  return [a, first - a * 40, ...parts].join(".");
}

const ATTR_NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.5": "serialNumber",
  "0.9.2342.19200300.100.1.25": "DC",
  "0.9.2342.19200300.100.1.1": "UID",
  "1.2.840.113549.1.9.1": "emailAddress",
};

function decodeString(buf: Uint8Array, t: Tlv): string | null {
  const bytes = buf.subarray(t.contentStart, t.end);
  switch (t.tag) {
    case 0x0c: // UTF8String
      return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
    case 0x13: // PrintableString
    case 0x16: // IA5String
    case 0x12: // NumericString
    case 0x1a: // VisibleString
    case 0x14: // TeletexString (treated as Latin-1)
      return String.fromCharCode(...bytes);
    case 0x1e: { // BMPString (UTF-16BE)
      let s = "";
      for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode((bytes[i] << 8) | bytes[i + 1]);
      return s;
    }
    case 0x1c: { // UniversalString (UTF-32BE)
      let s = "";
      for (let i = 0; i + 3 < bytes.length; i += 4) {
        s += String.fromCodePoint(
          ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0,
        );
      }
      return s;
    }
    default:
      return null;
  }
}

function escapeRdnValue(v: string): string {
  let s = v.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`);
  if (s.startsWith("#") || s.startsWith(" ")) s = `\\${s}`;
  if (s.endsWith(" ") && s.length > 1) s = `${s.slice(0, -1)}\\ `;
  return s;
}

interface NameAttr {
  type: string;
  value: string;
  /** True when `value` is the "#hex" DER form (non-string attribute value). */
  raw: boolean;
}

function readName(buf: Uint8Array, t: Tlv, what: string): { text: string; rdns: NameAttr[][] } {
  if (t.tag !== 0x30) fail(`${what}: expected a SEQUENCE, found 0x${hex2(t.tag)}`);
  const rdns: NameAttr[][] = [];
  for (const set of children(buf, t, what)) {
    if (set.tag !== 0x31) fail(`${what}: expected a SET in the name, found 0x${hex2(set.tag)}`);
    const rdn: NameAttr[] = [];
    for (const atv of children(buf, set, what)) {
      if (atv.tag !== 0x30) fail(`${what}: malformed attribute`);
      const [oidT, valT] = children(buf, atv, what);
      if (!oidT || oidT.tag !== 0x06 || !valT) fail(`${what}: malformed attribute`);
      const oid = decodeOid(buf.subarray(oidT.contentStart, oidT.end));
      const decoded = decodeString(buf, valT);
      const type = ATTR_NAMES[oid] ?? oid;
      const value = decoded ?? `#${Array.from(buf.subarray(valT.start, valT.end), hex2).join("")}`;
      rdn.push({ type, value, raw: decoded === null });
    }
    rdns.push(rdn);
  }
  const text = [...rdns].reverse()
    .map((rdn) => rdn.map((a) => `${a.type}=${a.raw ? a.value : escapeRdnValue(a.value)}`).join("+"))
    .join(",");
  return { text, rdns };
}

function readTime(buf: Uint8Array, t: Tlv, what: string): Date {
  const s = String.fromCharCode(...buf.subarray(t.contentStart, t.end));
  let m: RegExpMatchArray | null;
  let year: number;
  let rest: string;
  if (t.tag === 0x17) { // UTCTime YYMMDDHHMM[SS](Z|±hhmm)
    m = s.match(/^(\d{2})(\d{10}(?:\d{2})?)(Z|[+-]\d{4})$/);
    if (!m) fail(`${what}: malformed UTCTime "${s}"`);
    const yy = Number(m[1]);
    year = yy < 50 ? 2000 + yy : 1900 + yy;
    rest = m[2];
  } else if (t.tag === 0x18) { // GeneralizedTime YYYYMMDDHHMM[SS[.fff]](Z|±hhmm)
    m = s.match(/^(\d{4})(\d{8}(?:\d{2}(?:[.,]\d+)?)?)(Z|[+-]\d{4})$/);
    if (!m) fail(`${what}: malformed GeneralizedTime "${s}"`);
    year = Number(m[1]);
    rest = m[2];
  } else {
    fail(`${what}: expected UTCTime or GeneralizedTime, found tag 0x${hex2(t.tag)}`);
  }
  const month = Number(rest.slice(0, 2));
  const day = Number(rest.slice(2, 4));
  const hour = Number(rest.slice(4, 6));
  const minute = Number(rest.slice(6, 8));
  const secText = rest.slice(8);
  const seconds = secText === "" ? 0 : Number(secText.replace(",", "."));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || seconds >= 61) {
    fail(`${what}: out-of-range time "${s}"`);
  }
  let ms = Date.UTC(year, month - 1, day, hour, minute, 0) + Math.round(seconds * 1000);
  const zone = m[3];
  if (zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5))) * 60_000;
  }
  return new Date(ms);
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

function decodeBase64(s: string): Uint8Array | null {
  const clean = s.replace(/\s+/g, "");
  if (clean === "" || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) return null;
  const std = clean.replace(/-/g, "+").replace(/_/g, "/");
  if (std.replace(/=+$/, "").length % 4 === 1) return null;
  const padded = std.padEnd(Math.ceil(std.length / 4) * 4, "=");
  try {
    const bin = atob(padded);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Turns any accepted input form into the DER bytes of every certificate found. */
function toDerList(input: string | Uint8Array, depth = 0): Uint8Array[] {
  if (input instanceof Uint8Array) {
    if (input.length === 0) throw new CertificateParseError("empty", "empty certificate input");
    if (input[0] === 0x30) return [input];
    return toDerList(new TextDecoder().decode(input), depth);
  }
  if (typeof input !== "string") {
    throw new CertificateParseError("encoding", "certificate input is not text or bytes");
  }
  const text = input.trim();
  if (text === "") throw new CertificateParseError("empty", "empty certificate input");
  if (text.includes("-----BEGIN")) {
    const ders: Uint8Array[] = [];
    for (const m of text.matchAll(PEM_BLOCK)) {
      if (m[1] !== "CERTIFICATE") continue;
      const der = decodeBase64(m[2]);
      if (der === null) {
        throw new CertificateParseError("encoding", "PEM certificate block is not valid base64");
      }
      ders.push(der);
    }
    if (ders.length === 0) {
      throw new CertificateParseError("encoding", "no complete -----BEGIN CERTIFICATE----- block found");
    }
    return ders;
  }
  const bytes = decodeBase64(text);
  if (bytes === null || bytes.length === 0) {
    throw new CertificateParseError("encoding", "input is neither PEM nor base64");
  }
  if (bytes[0] === 0x30) return [bytes];
  if (depth === 0) {
    const inner = new TextDecoder().decode(bytes);
    if (inner.includes("-----BEGIN")) return toDerList(inner, depth + 1);
  }
  throw new CertificateParseError("encoding", "base64 input decodes to neither PEM nor DER");
}

function parseDer(der: Uint8Array): CertificateInfo {
  try {
    return parseDerUnchecked(der);
  } catch (e) {
    if (e instanceof CertificateParseError) throw e;
    throw new CertificateParseError(
      "structure",
      `malformed certificate: ${e instanceof Error ? e.message : e}`,
    );
  }
}

/** The TLVs of a TBSCertificate, split but not interpreted. */
interface TbsFields {
  version: Tlv | null;
  serial: Tlv;
  issuer: Tlv;
  notBefore: Tlv;
  notAfter: Tlv;
  subject: Tlv;
  /** SubjectPublicKeyInfo, then unique identifiers / extensions. */
  rest: Tlv[];
}

function splitTbs(der: Uint8Array): TbsFields {
  const cert = expect(der, 0, der.length, 0x30, "Certificate");
  const tbs = expect(der, cert.contentStart, cert.end, 0x30, "TBSCertificate");
  const fields = children(der, tbs, "TBSCertificate");
  let i = 0;
  const version = fields[i]?.tag === 0xa0 ? fields[i++] : null; // [0] EXPLICIT version
  const serial = fields[i++];
  if (!serial || serial.tag !== 0x02) fail("TBSCertificate: missing serial number INTEGER");
  const sigAlg = fields[i++];
  if (!sigAlg || sigAlg.tag !== 0x30) fail("TBSCertificate: missing signature algorithm");
  const issuer = fields[i++];
  if (!issuer) fail("TBSCertificate: missing issuer");
  const validity = fields[i++];
  if (!validity || validity.tag !== 0x30) fail("TBSCertificate: missing validity");
  const [notBefore, notAfter] = children(der, validity, "validity");
  if (!notBefore || !notAfter) fail("validity: expected notBefore and notAfter");
  const subject = fields[i++];
  if (!subject) fail("TBSCertificate: missing subject");
  return { version, serial, issuer, notBefore, notAfter, subject, rest: fields.slice(i) };
}

function parseDerUnchecked(der: Uint8Array, f: TbsFields = splitTbs(der)): CertificateInfo {
  const issuer = readName(der, f.issuer, "issuer");
  const subject = readName(der, f.subject, "subject");

  let serialBytes = der.subarray(f.serial.contentStart, f.serial.end);
  while (serialBytes.length > 1 && serialBytes[0] === 0) serialBytes = serialBytes.subarray(1);
  const flat = subject.rdns.flat();
  return {
    subject: subject.text,
    issuer: issuer.text,
    notBefore: readTime(der, f.notBefore, "notBefore"),
    notAfter: readTime(der, f.notAfter, "notAfter"),
    serialHex: Array.from(serialBytes, hex2).join("").toUpperCase(),
    commonName: flat.find((a) => a.type === "CN" && !a.raw)?.value ?? null,
    organizations: flat.filter((a) => a.type === "O" && !a.raw).map((a) => a.value),
  };
}

/**
 * Parses the first certificate of a PEM, base64-of-PEM, base64-of-DER or DER input.
 * Throws {@link CertificateParseError} with a readable message on anything else.
 */
export function parseCertificate(input: string | Uint8Array): CertificateInfo {
  return parseDer(toDerList(input)[0]);
}

/** Parses every certificate of a PEM bundle (or the single certificate of other forms). */
export function parseCertificates(input: string | Uint8Array): CertificateInfo[] {
  return toDerList(input).map(parseDer);
}

/** Non-throwing {@link parseCertificate}. */
export function tryParseCertificate(
  input: string | Uint8Array,
): { ok: true; cert: CertificateInfo } | { ok: false; error: string } {
  try {
    return { ok: true, cert: parseCertificate(input) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Verbatim DER pieces of a certificate's TBSCertificate plus its validity, for code that re-issues a
 * certificate with other dates (the test API server shifts scenario certificates to "now").
 */
export interface CertificateDerParts {
  /** The `[0] EXPLICIT` version TLV, or null when absent (v1). */
  version: Uint8Array | null;
  /** The serialNumber INTEGER TLV. */
  serial: Uint8Array;
  /** The issuer Name TLV (exact bytes, string types preserved). */
  issuer: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  /** The subject Name TLV (exact bytes, string types preserved). */
  subject: Uint8Array;
  /** The TLVs after the subject: SubjectPublicKeyInfo, then unique identifiers / `[3]` extensions. */
  rest: Uint8Array[];
}

/**
 * Splits the first certificate of any input form {@link parseCertificate} accepts into its DER pieces
 * (names, serial, key and extensions verbatim; validity parsed). Throws {@link CertificateParseError}.
 */
export function certificateDerParts(input: string | Uint8Array): CertificateDerParts {
  const der = toDerList(input)[0];
  try {
    const f = splitTbs(der);
    const info = parseDerUnchecked(der, f); // full validation (names, times) before handing out pieces
    const raw = (t: Tlv): Uint8Array => der.slice(t.start, t.end);
    return {
      version: f.version ? raw(f.version) : null,
      serial: raw(f.serial),
      issuer: raw(f.issuer),
      notBefore: info.notBefore,
      notAfter: info.notAfter,
      subject: raw(f.subject),
      rest: f.rest.map(raw),
    };
  } catch (e) {
    if (e instanceof CertificateParseError) throw e;
    throw new CertificateParseError(
      "structure",
      `malformed certificate: ${e instanceof Error ? e.message : e}`,
    );
  }
}
