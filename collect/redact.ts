/**
 * Redaction for support bundles (`flyingfish collect`): one pass for every source — listed objects,
 * container logs, exec output and Events — so that a bundle holds what the checks read and nothing
 * a user would not share. What was scrubbed is counted per kind of secret in a {@link Tally}, which
 * the manifest records and `collect` prints.
 *
 * The rules (see docs/collect.md), in order:
 * 1. Structure, on every object ({@link redactObject}):
 *    - `metadata.managedFields` and the last-applied-configuration annotation go;
 *    - annotations: kept only for the keys the checks read ({@link KEPT_ANNOTATIONS}) and for keys of
 *      the Liqo / Kubernetes domains (`*.liqo.io/`, `*.kubernetes.io/`, `*.k8s.io/`, `flyingfish.io/`)
 *      whose value is a single word (no white space, ≤ 253 characters); every other value is
 *      `(redacted)` — free text ("db password is …") never survives;
 *    - containers (pods, pod templates, Liqo gateway templates): env `value`s are `(redacted)` except
 *      the names the checks read ({@link KEPT_ENV}) and values that are a boolean or a small number;
 *      `valueFrom` references are kept (names, not values). command/args: every flag value is
 *      `(redacted)` except the Liqo/CNI flags of {@link KEPT_FLAGS}; positional arguments other than
 *      the executable are `(redacted)`;
 *    - ConfigMaps: every `data`/`binaryData` value is `(redacted)` (the keys stay) except in the ConfigMaps
 *      the checks read (Liqo's cluster-ID ConfigMap, `cilium-config`);
 *    - Secrets: every data key but `publicKey`, and all of `stringData`, go; `publicKey` itself is kept
 *      only when it is a WireGuard key (32 bytes, base64, possibly base64 again as Secret data);
 *    - Event `message`/`note` and container state messages are free text: the full text scrubber runs.
 * 2. Patterns, on every string of every object and every text ({@link scrubSecrets}): PEM blocks of any
 *    type but the public ones (certificates, which API-03 parses, CSRs, public keys), whatever the
 *    field or line they are in, raw or base64-encoded;
 *    `Bearer` credentials, JWTs, AWS access key IDs, and the password of `scheme://user:password@` URLs.
 * 3. Free text (logs, exec output, Event messages: {@link scrubText}) also loses `Basic` credentials,
 *    `token=… / password: … / aws_secret_access_key=… / "password is …"`-like pairs and base64 keys on
 *    a line that mentions "private" or "preshared".
 * 4. Provider keys ({@link findProviderSecrets}): secretlint's recommended rule preset (MIT; GitHub,
 *    GitLab, Slack, Stripe, OpenAI, Anthropic, npm, SendGrid, GCP, database connection strings, basic
 *    auth, …) runs over every file of the bundle; what it finds is removed everywhere.
 * 5. Known values ({@link scrubKnown}): kubeconfig credentials and the WireGuard private keys seen in
 *    `wg show` output are removed from every file, byte for byte.
 *
 * Optional IP pseudonymisation (`--redact-ips`) maps IPv4 addresses with a keyed, prefix-preserving
 * scheme so CIDR relationships survive.
 */
import { createHmac } from "node:crypto";
import type { K8sObject } from "../kube/source.ts";
import { isWireguardKey } from "../kube/live/list.ts";
import { nestedDeeperThan, objectLabel, TOO_DEEP_REASON } from "../kube/depth.ts";
import {
  MANAGED_BY_NAMESPACE_MAP_ANNOTATION,
  PREINSTALLED_ANNOTATION,
  UNREACHABLE_ANNOTATION,
} from "../liqo/names.ts";

export { isWireguardKey };

/** Text that replaces a redacted value. */
export const REDACTED = "(redacted)";

/** Counts of scrubbed values per kind of secret (e.g. `{ pem: 2, env: 14, args: 3 }`). */
export type Tally = Record<string, number>;

/** The kinds a {@link Tally} counts, with what each one means (printed by `collect`, kept in the manifest). */
export const SCRUB_KINDS = {
  "pem": "PEM blocks (private keys, …), raw or base64-encoded; certificates, CSRs and public keys are kept",
  "bearer": "Bearer / Basic credentials",
  "jwt": "JSON Web Tokens",
  "aws-access-key": "AWS access key IDs (AKIA…, ASIA…)",
  "url-credentials": "passwords of scheme://user:password@host URLs",
  "key-value": "token= / password: / secret= -like pairs in free text",
  "private-key-b64": "32-byte base64 keys on a line mentioning private/preshared",
  "provider-key": "provider credentials found by secretlint (GitHub, Slack, Stripe, OpenAI, GCP, …)",
  "known-credential": "kubeconfig credentials and WireGuard private keys seen elsewhere in the capture",
  "wg-private-key": "WireGuard private and preshared keys in wg show output",
  "env": "container env values",
  "args": "container command/args values",
  "annotations": "annotation values",
  "last-applied": "kubectl last-applied-configuration annotations",
  "configmap-keys": "ConfigMap data values",
  "secret-keys": "Secret data/stringData keys (all but a valid WireGuard publicKey)",
} as const;

/** One kind of a {@link Tally}. */
export type ScrubKind = keyof typeof SCRUB_KINDS;

/** Adds `n` to a kind of a tally (no-op without a tally or for n = 0). */
export function bump(tally: Tally | undefined, kind: ScrubKind, n = 1): void {
  if (!tally || n === 0) return;
  tally[kind] = (tally[kind] ?? 0) + n;
}

/** Adds every count of `from` into `into`; returns `into`. */
export function addTally(into: Tally, from: Tally): Tally {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  return into;
}

/** A tally sorted by kind name, zero counts dropped (stable manifest output). */
export function sortedTally(t: Tally): Tally {
  return Object.fromEntries(
    Object.entries(t).filter(([, v]) => v > 0).sort(([a], [b]) => a.localeCompare(b)),
  );
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** Annotation keys the checks read: always kept (their values still go through {@link scrubSecrets}). */
export const KEPT_ANNOTATIONS: ReadonlySet<string> = new Set([
  UNREACHABLE_ANNOTATION, // ENV-04
  PREINSTALLED_ANNOTATION, // ENV-06
  MANAGED_BY_NAMESPACE_MAP_ANNOTATION, // CNI-02
  "flyingfish.io/redacted-keys", // written by the live source on secrets
]);

/** Domains whose single-word annotation values are kept (Liqo's own and Kubernetes' well-known keys). */
const KEPT_ANNOTATION_DOMAIN = /^(?:[a-z0-9-]+\.)*(?:liqo\.io|kubernetes\.io|k8s\.io|flyingfish\.io)\//;
/** A single-word annotation value (no white space). */
const WORD_VALUE = /^\S{0,253}$/;

/** Env var names whose values the checks read (CNI-01: Calico's settings on its DaemonSet). */
export const KEPT_ENV: ReadonlySet<string> = new Set([
  "IP_AUTODETECTION_METHOD",
  "CALICO_NETWORKING_BACKEND",
]);
/** Env values kept whatever the name: booleans and small numbers (ports, MTUs) are not credentials. */
const HARMLESS_VALUE = /^(?:true|false|\d{1,5})$/i;

/**
 * Container flags whose values are kept: those the checks read (GW-04 endpoint-address/-port, TUN-06
 * mtu, ENV-01 ipam-server, CNI-01 gateway-masquerade-bypass-enabled / fabric-route-rule-priority,
 * networking-enabled, ping-enabled) and Liqo's other non-secret gateway / fabric / controller-manager
 * settings, useful to a reader of the bundle. Everything else (`--token=…`, `--stripe-key=…`) goes.
 */
export const KEPT_FLAGS: ReadonlySet<string> = new Set([
  // read by the checks
  "endpoint-address",
  "endpoint-port",
  "mtu",
  "ipam-server",
  "gateway-masquerade-bypass-enabled",
  "fabric-route-rule-priority",
  "fabric-full-masquerade-enabled",
  "networking-enabled",
  "ping-enabled",
  // Liqo gateway / fabric / ipam / controller-manager / virtual-kubelet settings (no credentials)
  "authentication-enabled",
  "offloading-enabled",
  "cluster-id",
  "home-cluster-id",
  "foreign-cluster-id",
  "remote-cluster-id",
  "tenant-namespace",
  "liqo-namespace",
  "namespace",
  "name",
  "mode",
  "gateway-uid",
  "container-name",
  "concurrent-containers-names",
  "pod-name",
  "podname",
  "node-name",
  "nodename",
  "listen-port",
  "port",
  "geneve-port",
  "implementation",
  "ping-interval",
  "ping-loss-threshold",
  "ping-update-status-interval",
  "enable-route-monitor",
  "enable-nft-monitor",
  "leader-election",
  "metrics-address",
  "health-probe-bind-address",
  "webhook-port",
  "pools",
  "reserved-subnets",
  "podcidr",
  "local-podcidr",
  "enable-api-server-ip-remapping",
  "gateway-server-resources",
  "gateway-client-resources",
  "preserve-client-endpoint",
  "sync-interval",
  "sync-graceperiod",
  "node-check-network",
  "node-ip",
  "create-node",
  "metrics-enabled",
  "v",
  "zap-log-level",
]);

/** Secret data keys that may be written (public by nature). */
const KEPT_SECRET_KEYS: ReadonlySet<string> = new Set(["publicKey"]);

/** ConfigMaps whose data the checks read: Liqo's cluster ID, Cilium's settings (CNI-01). */
function configMapKept(o: K8sObject): boolean {
  const m = o.metadata;
  return m.labels?.["app.kubernetes.io/name"] === "clusterid-configmap" ||
    m.name === "liqo-clusterid-configmap" || m.name === "cilium-config";
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Redacts one object for a bundle (a deep copy; the input is untouched): the structural rules of the
 * module doc (annotations, containers, ConfigMaps, Secrets, free-text messages), then the patterns
 * of {@link scrubSecrets} on every remaining string. Counts go to `tally`. The walks below recurse
 * once per level, so an object nested deeper than kube/depth.ts allows is refused with an Error
 * naming it (`collect` sets such objects aside before it gets here).
 */
export function redactObject(obj: K8sObject, tally?: Tally): K8sObject {
  if (nestedDeeperThan(obj)) {
    throw new Error(`${objectLabel({ ...obj.metadata, kind: obj.kind })}: ${TOO_DEEP_REASON}`);
  }
  const copy = structuredClone(obj) as K8sObject;
  const meta = copy.metadata ?? (copy.metadata = { name: "" });
  delete meta.managedFields;
  if (isRecord(meta.annotations)) {
    const ann = meta.annotations as Record<string, unknown>;
    if (LAST_APPLIED in ann) {
      delete ann[LAST_APPLIED];
      bump(tally, "last-applied");
    }
    for (const [k, v] of Object.entries(ann)) {
      if (KEPT_ANNOTATIONS.has(k)) continue;
      if (KEPT_ANNOTATION_DOMAIN.test(k) && typeof v === "string" && WORD_VALUE.test(v)) continue;
      if (v === "" || v === REDACTED) continue;
      ann[k] = REDACTED;
      bump(tally, "annotations");
    }
  }
  if (copy.kind === "Secret") redactSecret(copy, tally);
  if (copy.kind === "ConfigMap" && !configMapKept(copy)) {
    for (const field of ["data", "binaryData"] as const) {
      const d = copy[field];
      if (!isRecord(d)) continue;
      for (const k of Object.keys(d)) {
        if (d[k] === "" || d[k] === REDACTED) continue;
        d[k] = REDACTED;
        bump(tally, "configmap-keys");
      }
    }
  }
  if (copy.kind === "Event") {
    for (const field of ["message", "note"] as const) {
      if (typeof copy[field] === "string") copy[field] = scrubText(copy[field] as string, [], tally);
    }
  }
  redactContainers(copy, tally);
  return deepScrub(copy, tally);
}

function redactSecret(copy: K8sObject, tally: Tally | undefined): void {
  // Keys the live source already removed on read (it lists them in an annotation) count too.
  const removed = copy.metadata.annotations?.["flyingfish.io/redacted-keys"];
  if (typeof removed === "string" && removed !== "") bump(tally, "secret-keys", removed.split(",").length);
  if (isRecord(copy.data)) {
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(copy.data)) {
      if (KEPT_SECRET_KEYS.has(k) && isWireguardKey(v)) kept[k] = v;
      else bump(tally, isPemLike(v) ? "pem" : "secret-keys");
    }
    copy.data = kept;
  } else if (copy.data !== undefined) {
    delete copy.data;
  }
  if (copy.stringData !== undefined) {
    bump(tally, "secret-keys", isRecord(copy.stringData) ? Object.keys(copy.stringData).length : 1);
    delete copy.stringData;
  }
}

function isPemLike(v: unknown): boolean {
  if (typeof v !== "string") return false;
  if (v.includes("-----BEGIN ")) return true;
  try {
    return atob(v).includes("-----BEGIN ");
  } catch {
    return false;
  }
}

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** Env values and command/args values of every container list found anywhere in the object. */
function redactContainers(v: unknown, tally: Tally | undefined): void {
  if (Array.isArray(v)) {
    for (const x of v) redactContainers(x, tally);
    return;
  }
  if (!isRecord(v)) return;
  for (const list of CONTAINER_LISTS) {
    const cs = v[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isRecord(c)) continue;
      if (Array.isArray(c.env)) redactEnv(c.env, tally);
      if (Array.isArray(c.command)) c.command = redactArgs(c.command, true, tally);
      if (Array.isArray(c.args)) c.args = redactArgs(c.args, !Array.isArray(c.command), tally);
    }
  }
  for (const x of Object.values(v)) redactContainers(x, tally);
}

function redactEnv(env: unknown[], tally: Tally | undefined): void {
  for (const e of env) {
    if (!isRecord(e) || typeof e.value !== "string") continue;
    const name = typeof e.name === "string" ? e.name : "";
    if (KEPT_ENV.has(name) || e.value === "" || e.value === REDACTED || HARMLESS_VALUE.test(e.value)) {
      continue;
    }
    e.value = REDACTED;
    bump(tally, "env");
  }
}

/**
 * Redacts a command or args array, keeping its shape so `containerArgs` parses it the same way:
 * `--flag=value` → `--flag=(redacted)`, `--flag value` → `--flag (redacted)`, unless the flag is in
 * {@link KEPT_FLAGS}; bare flags stay; the executable (first element of `command`) stays; any other
 * positional argument (a shell script, a token) is redacted.
 */
export function redactArgs(args: unknown[], hasExecutable: boolean, tally?: Tally): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== "string") {
      out.push(a);
      continue;
    }
    if (i === 0 && hasExecutable) {
      out.push(a);
      continue;
    }
    const flag = /^--?([A-Za-z0-9][A-Za-z0-9_.-]*)(=([\s\S]*))?$/.exec(a);
    if (flag) {
      const name = flag[1];
      const kept = KEPT_FLAGS.has(name);
      if (flag[2] !== undefined) {
        const value = flag[3];
        if (kept || value === "" || HARMLESS_VALUE.test(value) || value === REDACTED) out.push(a);
        else {
          out.push(`${a.slice(0, a.indexOf("=") + 1)}${REDACTED}`);
          bump(tally, "args");
        }
        continue;
      }
      out.push(a);
      const next = args[i + 1];
      if (typeof next === "string" && !next.startsWith("-")) {
        i++;
        if (kept || HARMLESS_VALUE.test(next) || next === REDACTED) out.push(next);
        else {
          out.push(REDACTED);
          bump(tally, "args");
        }
      }
      continue;
    }
    if (a === "" || a === REDACTED || HARMLESS_VALUE.test(a)) out.push(a);
    else {
      out.push(REDACTED);
      bump(tally, "args");
    }
  }
  return out;
}

/** {@link scrubSecrets} on every string of a JSON-like value (container state messages: {@link scrubText}). */
function deepScrub<T>(v: T, tally: Tally | undefined, key = ""): T {
  if (typeof v === "string") {
    return (FREE_TEXT_KEYS.has(key) ? scrubText(v, [], tally) : scrubSecrets(v, tally)) as T;
  }
  if (Array.isArray(v)) return v.map((x) => deepScrub(x, tally)) as T;
  if (isRecord(v)) {
    const o: Record<string, unknown> = v;
    for (const [k, x] of Object.entries(o)) o[k] = deepScrub(x, tally, k);
    return v;
  }
  return v;
}

/** Keys holding free text from a program (container termination/waiting messages, Event messages). */
const FREE_TEXT_KEYS: ReadonlySet<string> = new Set(["message", "note"]);

/**
 * Redacts the key material of `wg show … dump` output: the private key of every interface line
 * (5 fields in `wg show all dump`, 4 in `wg show <if> dump`) and any preshared key of a peer line.
 * Returns the redacted text and the secret values it removed (to scrub them anywhere else).
 */
export function redactWgDump(text: string, tally?: Tally): { text: string; secrets: string[] } {
  const secrets: string[] = [];
  const lines = text.split("\n").map((line) => {
    const eol = line.endsWith("\r") ? "\r" : "";
    const body = eol ? line.slice(0, -1) : line;
    const tabbed = body.includes("\t");
    const f = tabbed ? body.split("\t") : body.trim() === "" ? [] : body.trim().split(/\s+/);
    const redactAt = (i: number): void => {
      const v = f[i];
      if (v !== undefined && v !== "(none)" && v !== "" && v !== REDACTED) {
        secrets.push(v.trim());
        f[i] = REDACTED;
        bump(tally, "wg-private-key");
      }
    };
    if (f.length === 5) redactAt(1); // all-dump interface line: name, private key, …
    else if (f.length === 4) redactAt(0); // single-interface dump: private key, …
    else if (f.length === 9) redactAt(2); // all-dump peer line: name, public key, preshared key, …
    else if (f.length === 8) redactAt(1); // single-interface peer line: public key, preshared key, …
    else return line;
    return f.join(tabbed ? "\t" : " ") + eol;
  });
  return { text: lines.join("\n"), secrets: secrets.filter((s) => s.length >= 8) };
}

// ---------------------------------------------------------------------------------------------
// Patterns (documented, tested in redact_test.ts)

/** A PEM block of any type (the END line may be missing in a cut log). */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]{1,64})-----[\s\S]*?(?:-----END \1-----|$)/g;
/**
 * PEM types that are public by nature and kept: certificates (API-03 parses them), certificate
 * requests and public keys (Liqo's Tenant spec carries them). Every other type (PRIVATE KEY, RSA/EC
 * PRIVATE KEY, ENCRYPTED PRIVATE KEY, OPENSSH PRIVATE KEY, PGP …, unknown ones) is redacted.
 */
const PUBLIC_PEM = new Set([
  "CERTIFICATE",
  "CERTIFICATE REQUEST",
  "NEW CERTIFICATE REQUEST",
  "PUBLIC KEY",
  "X509 CRL",
]);
/** Base64 of "-----BEGIN" (as in Secret data, kubeconfig client-key-data): decoded and judged. */
const B64_PEM = /LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}/g;
const BEARER = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]{8,}=*/g;
const BASIC = /\b(Basic)\s+[A-Za-z0-9+/]{8,}={0,2}/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const AWS_ACCESS_KEY = /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/g;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{1,30}:\/\/)([^\s:@/"'<>]+):([^\s@/"'<>]+)@/gi;
const KEY_VALUE =
  /(["']?[A-Za-z0-9_.-]*(?:token|password|passwd|passphrase|secret|private[-_ ]?key|client-key-data|client-key|api[-_]?key|access[-_]?key|preshared[-_ ]?key|credentials?)[A-Za-z0-9_.-]*["']?\s*(?:[:=]|\s)\s*(?:(?:is|was|are)\s+)?)(["']?)([^\s"',;}]+)\2/gi;
const B64_KEY = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42,43}=(?![A-Za-z0-9+/=])/g;

function decodedPemTypes(b64: string): string[] | null {
  try {
    const padded = b64 + "=".repeat((4 - (b64.length % 4)) % 4);
    const text = atob(padded.replace(/={3,}$/, ""));
    return [...text.matchAll(/-----BEGIN ([A-Z0-9 ]{1,64})-----/g)].map((m) => m[1]);
  } catch {
    return null;
  }
}

/**
 * The high-precision patterns, safe on any string (object fields included): PEM blocks but
 * certificates, base64-encoded PEM blocks but certificates, `Bearer` credentials, JWTs, AWS access key
 * IDs, passwords in URLs.
 */
export function scrubSecrets(text: string, tally?: Tally): string {
  let out = text;
  if (out.includes("-----BEGIN ")) {
    out = out.replace(PEM_BLOCK, (m, type: string) => {
      if (PUBLIC_PEM.has(type)) return m;
      bump(tally, "pem");
      return `-----BEGIN ${type}-----${REDACTED}-----END ${type}-----`;
    });
  }
  if (out.includes("LS0tLS1CRUdJTi")) {
    out = out.replace(B64_PEM, (m) => {
      const types = decodedPemTypes(m);
      if (types && types.length > 0 && types.every((t) => PUBLIC_PEM.has(t))) return m;
      bump(tally, "pem");
      return REDACTED;
    });
  }
  out = out.replace(BEARER, (_m, scheme: string) => {
    bump(tally, "bearer");
    return `${scheme} ${REDACTED}`;
  });
  out = out.replace(JWT, () => {
    bump(tally, "jwt");
    return REDACTED;
  });
  out = out.replace(AWS_ACCESS_KEY, () => {
    bump(tally, "aws-access-key");
    return REDACTED;
  });
  out = out.replace(URL_CREDENTIALS, (m, scheme: string, user: string, pass: string) => {
    if (pass === REDACTED) return m;
    bump(tally, "url-credentials");
    return `${scheme}${user}:${REDACTED}@`;
  });
  return out;
}

/**
 * Scrubs free text (logs, command output, Event messages): {@link scrubSecrets}, then `Basic`
 * credentials, `token=…` / `password: …` / `aws_secret_access_key=…` / `password is …` pairs, and
 * 32-byte base64 keys on a line that mentions "private" or "preshared". Then removes every value of
 * `known` (secrets seen elsewhere in the capture, e.g. the WireGuard private keys or kubeconfig
 * credentials).
 */
export function scrubText(text: string, known: readonly string[] = [], tally?: Tally): string {
  let out = scrubSecrets(text, tally);
  out = out.replace(BASIC, (_m, scheme: string) => {
    bump(tally, "bearer");
    return `${scheme} ${REDACTED}`;
  });
  out = out.split("\n").map((line) => {
    let l = line.replace(KEY_VALUE, (m, head: string, q: string, value: string) => {
      if (value === REDACTED || /^\(?none\)?$|^null$|^true$|^false$|^""$/i.test(value)) return m;
      bump(tally, "key-value");
      return `${head}${q}${REDACTED}${q}`;
    });
    if (/private|preshared/i.test(l)) {
      l = l.replace(B64_KEY, () => {
        bump(tally, "private-key-b64");
        return REDACTED;
      });
    }
    return l;
  }).join("\n");
  return scrubKnown(out, known, tally);
}

/** Replaces every occurrence of each known secret value (at least 8 characters) by {@link REDACTED}. */
export function scrubKnown(
  text: string,
  known: readonly string[],
  tally?: Tally,
  kind: ScrubKind = "known-credential",
): string {
  let out = text;
  for (const s of known) {
    if (s.length < 8) continue;
    if (out.includes(s)) {
      const parts = out.split(s);
      bump(tally, kind, parts.length - 1);
      out = parts.join(REDACTED);
    }
  }
  return out;
}

/**
 * Provider credentials in a text, found by secretlint's recommended preset (loaded on first use, only
 * by `collect`). Returns the matched values (quote- and backslash-free, so they can be removed from
 * JSON text as they are), longest first.
 */
export async function findProviderSecrets(text: string): Promise<string[]> {
  if (text.length === 0) return [];
  const lint = await secretlint();
  const found = new Set<string>();
  try {
    const r = await lint(text);
    for (const m of r) {
      const v = text.slice(m[0], m[1]).split(/["\\]/)[0];
      if (v.length >= 8 && v !== REDACTED) found.add(v);
    }
  } catch {
    // a rule that throws on odd input finds nothing
  }
  return [...found].sort((a, b) => b.length - a.length);
}

type Lint = (text: string) => Promise<[number, number][]>;
let lintPromise: Promise<Lint> | null = null;

function secretlint(): Promise<Lint> {
  lintPromise ??= (async () => {
    const [{ lintSource }, { creator }] = await Promise.all([
      import("@secretlint/core"),
      import("@secretlint/secretlint-rule-preset-recommend"),
    ]);
    const config = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: creator }] };
    return async (content: string) => {
      const r = await lintSource({
        source: { filePath: "bundle.txt", content, ext: ".txt", contentType: "text" },
        options: { config, maskSecrets: false },
      });
      return r.messages.map((m) => [m.range[0], m.range[1]] as [number, number]);
    };
  })();
  return lintPromise;
}

// ---------------------------------------------------------------------------------------------
// IP pseudonymisation

/**
 * Address ranges whose *class* is kept: an address inside one maps inside the same range (and
 * nothing outside maps into it), so judgements such as "private vs public" survive. Loopback
 * (127.0.0.0/8), 0.0.0.0 and 255.255.255.255 map to themselves.
 */
const KEPT_CLASSES: readonly [number, number][] = [
  [ip4("10.0.0.0"), 8],
  [ip4("172.16.0.0"), 12],
  [ip4("192.168.0.0"), 16],
  [ip4("100.64.0.0"), 10],
  [ip4("169.254.0.0"), 16],
  [ip4("127.0.0.0"), 8],
  [ip4("224.0.0.0"), 4],
  [ip4("0.0.0.0"), 32],
  [ip4("255.255.255.255"), 32],
];

function ip4(s: string): number {
  return s.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

function fmt4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** Maps IPv4 addresses (and CIDRs) to pseudonyms; see {@link createIpPseudonymizer}. */
export interface IpPseudonymizer {
  /** Maps one dotted-quad address (as a 32-bit unsigned number). */
  mapAddress(addr: number): number;
  /** Maps every IPv4 address and `a.b.c.d/n` CIDR inside a string; everything else is left alone. */
  mapString(s: string): string;
  /** Maps every string (and object key) inside a JSON-like value; returns a new value. */
  mapDeep<T>(v: T): T;
}

const IPV4_IN_TEXT =
  /(?<![0-9A-Za-z.])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(?:\/(3[0-2]|[12]?\d))?(?![0-9]|\.\d)/g;

/**
 * A keyed, prefix-preserving IPv4 pseudonymiser in the spirit of Crypto-PAn: bit i of the output is
 * bit i of the input XOR a pseudo-random bit computed with HMAC-SHA256(key, i ‖ the first i input
 * bits). Hence the mapping is a bijection, the same input always gives the same output (for one
 * key), and two addresses sharing an n-bit prefix share an n-bit prefix after mapping — a CIDR
 * `a.b.c.d/n` maps to `mapped(a.b.c.d)/n` (host bits zeroed when they were zero) and containment is
 * kept. Along the paths of the {@link KEPT_CLASSES} prefixes no bit is flipped, so loopback,
 * 0.0.0.0 and the broadcast address stay unchanged and RFC 1918 / CGNAT / link-local / multicast
 * addresses stay in their range. Inside 127.0.0.0/8 nothing changes at all.
 *
 * What it trades away: exact addresses (public IPs, well-known ones such as cloud metadata), host
 * bits (a remapped address no longer equals remapped-prefix + original host bits, so arithmetic
 * between a CIDR and an address can disagree), and the identity of a network address written as a
 * plain IP versus as a CIDR. IPv6 addresses are left unchanged.
 */
export function createIpPseudonymizer(key: Uint8Array): IpPseudonymizer {
  const bitCache = new Map<string, number>();
  const addrCache = new Map<number, number>();
  const keyBuf = key.slice();

  const flip = (i: number, prefix: number): number => {
    // No flip along the path of a kept class (the node lies on the prefix of a kept range).
    for (const [net, len] of KEPT_CLASSES) {
      if (i < len && (i === 0 || (prefix >>> (32 - i)) === (net >>> (32 - i)))) return 0;
    }
    const id = `${i}/${i === 0 ? 0 : prefix >>> (32 - i)}`;
    let b = bitCache.get(id);
    if (b === undefined) {
      b = createHmac("sha256", keyBuf).update(id).digest()[0] & 1;
      bitCache.set(id, b);
    }
    return b;
  };

  const mapAddress = (addr: number): number => {
    const a = addr >>> 0;
    if ((a >>> 24) === 127) return a;
    const hit = addrCache.get(a);
    if (hit !== undefined) return hit;
    let out = 0;
    for (let i = 0; i < 32; i++) {
      const bit = (a >>> (31 - i)) & 1;
      out = (out << 1) | (bit ^ flip(i, a));
    }
    out >>>= 0;
    addrCache.set(a, out);
    return out;
  };

  const mapString = (s: string): string => {
    if (!/\d\.\d/.test(s)) return s;
    return s.replace(IPV4_IN_TEXT, (_m, addr: string, bits: string | undefined) => {
      const a = ip4(addr);
      let m = mapAddress(a);
      if (bits === undefined) return fmt4(m);
      const n = Number(bits);
      const hostMask = n === 0 ? 0xffffffff : n === 32 ? 0 : (0xffffffff >>> n);
      if ((a & hostMask) >>> 0 === 0) m = (m & ~hostMask) >>> 0;
      return `${fmt4(m)}/${n}`;
    });
  };

  const mapDeep = <T>(v: T): T => {
    if (typeof v === "string") return mapString(v) as T;
    if (Array.isArray(v)) return v.map((x) => mapDeep(x)) as T;
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[mapString(k)] = mapDeep(x);
      return out as T;
    }
    return v;
  };

  return { mapAddress, mapString, mapDeep };
}
