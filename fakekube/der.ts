/**
 * Just enough DER reading to take an X.509 certificate apart for re-issuing (tls.ts): the raw
 * TBSCertificate fields and the two validity times. The fake's own reader, apart from the
 * product's probes/x509.ts (which tests/fakekube/cert_shift_test.ts uses to read the result back).
 */

/** A byte string that is not a well-formed certificate. */
export class CertificateParseError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "CertificateParseError";
  }
}

/** The raw pieces of a certificate's TBSCertificate (each a whole TLV), and its validity. */
export interface CertificateParts {
  /** The `[0] EXPLICIT Version` element, null when absent (v1). */
  version: Uint8Array | null;
  serial: Uint8Array;
  issuer: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  subject: Uint8Array;
  /** subjectPublicKeyInfo and whatever follows (unique ids, extensions). */
  rest: Uint8Array[];
}

interface Tlv {
  tag: number;
  /** Where the element starts (tag byte), where its content starts, where it ends. */
  start: number;
  body: number;
  end: number;
}

function readTlv(der: Uint8Array, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new CertificateParseError("truncated element");
  const tag = der[at];
  if ((tag & 0x1f) === 0x1f) throw new CertificateParseError("multi-byte tag");
  let len = der[at + 1];
  let body = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || body + n > limit) throw new CertificateParseError("bad length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[body + i];
    body += n;
  }
  const end = body + len;
  if (end > limit) throw new CertificateParseError("element overruns its container");
  return { tag, start: at, body, end };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end; at = out[out.length - 1].end) {
    out.push(readTlv(der, at, parent.end));
  }
  return out;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;

function expect(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.tag !== tag) throw new CertificateParseError(`expected ${what}`);
  return t;
}

/** UTCTime (YYMMDDHHMMSSZ, years 1950–2049) or GeneralizedTime (YYYYMMDDHHMMSSZ). */
function readTime(der: Uint8Array, t: Tlv): Date {
  const text = new TextDecoder().decode(der.subarray(t.body, t.end));
  const m = t.tag === UTC_TIME
    ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : t.tag === GENERALIZED_TIME
    ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : null;
  if (!m) throw new CertificateParseError(`bad validity time "${text}"`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const year = t.tag === UTC_TIME ? (y < 50 ? 2000 + y : 1900 + y) : y;
  const date = new Date(Date.UTC(year, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new CertificateParseError(`bad validity time "${text}"`);
  }
  return date;
}

/** Takes a DER certificate apart; throws CertificateParseError when it is not one. */
export function certificateParts(der: Uint8Array): CertificateParts {
  const cert = expect(readTlv(der, 0, der.length), SEQUENCE, "a certificate SEQUENCE");
  if (cert.end !== der.length) throw new CertificateParseError("trailing bytes after the certificate");
  const [tbs, sigAlg, sig] = children(der, cert);
  expect(tbs, SEQUENCE, "a TBSCertificate");
  expect(sigAlg, SEQUENCE, "a signature algorithm");
  if (!sig || sig.tag !== 0x03) throw new CertificateParseError("expected a signature BIT STRING");
  const fields = children(der, tbs);
  const version = fields[0]?.tag === 0xa0 ? fields.shift()! : null;
  const serial = expect(fields[0], INTEGER, "a serial number");
  expect(fields[1], SEQUENCE, "a signature algorithm");
  const issuer = expect(fields[2], SEQUENCE, "an issuer Name");
  const validity = expect(fields[3], SEQUENCE, "a Validity");
  const subject = expect(fields[4], SEQUENCE, "a subject Name");
  const spki = expect(fields[5], SEQUENCE, "a subjectPublicKeyInfo");
  const [notBefore, notAfter] = children(der, validity);
  if (!notBefore || !notAfter) throw new CertificateParseError("expected two validity times");
  const raw = (t: Tlv): Uint8Array => der.slice(t.start, t.end);
  return {
    version: version ? raw(version) : null,
    serial: raw(serial),
    issuer: raw(issuer),
    notBefore: readTime(der, notBefore),
    notAfter: readTime(der, notAfter),
    subject: raw(subject),
    rest: [spki, ...fields.slice(6)].map(raw),
  };
}
