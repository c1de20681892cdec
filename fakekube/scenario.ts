/**
 * Loads test scenarios (testdata/scenarios/<name>/scenario.yaml, see testdata/README.md), builds
 * what each fake cluster serves (base + overlays - deletes + merge patches, timestamps and embedded
 * X.509 certificates shifted to now, WireGuard state merged) and serves them.
 */
import { parse, parseAllDocuments } from "yaml";
import { z } from "zod";
import type { ExpectedStatus as Status, K8sObject } from "./object.ts";
import type { WireguardState } from "./exec.ts";
import { type FakeCluster, type FakeClusterConfig, kubeconfigFor, startFakeCluster } from "./server.ts";
import { type FaultRule, FaultRuleSchema } from "./faults.ts";
import { type Lifecycle, LifecycleSchema } from "./lifecycle.ts";
import { generateTlsMaterial, shiftPemCertificates } from "./tls.ts";
import { type NetworkModel, NetworkModelSchema } from "./netmodel.ts";
import { createNetworkHost } from "./probe_exec.ts";
import { LiqoReflection } from "./reflection.ts";

/** The base examples' time; scenario timestamps are shifted by (now - referenceTime). */
export const DEFAULT_REFERENCE_TIME = "2026-11-30T02:30:00Z";

const StatusSchema = z.enum(["pass", "warn", "fail", "skip", "unknown"]);

const PeerSchema = z.strictObject({
  publicKey: z.string(),
  presharedKey: z.string().default("(none)"),
  endpoint: z.string().default("(none)"),
  allowedIps: z.array(z.string()).default([]),
  handshakeAgoSeconds: z.number().nonnegative().nullable().default(null),
  rxBytes: z.number().nonnegative().default(0),
  txBytes: z.number().nonnegative().default(0),
  rxBytesPerSecond: z.number().nonnegative().default(0),
  txBytesPerSecond: z.number().nonnegative().default(0),
  persistentKeepalive: z.union([z.string(), z.number()]).default("off"),
});

const InterfaceSchema = z.strictObject({
  name: z.string(),
  privateKey: z.string(),
  publicKey: z.string(),
  listenPort: z.number().int().nonnegative().default(0),
  fwmark: z.union([z.string(), z.number()]).default("off"),
  mtu: z.number().int().positive().default(1420),
  peers: z.array(PeerSchema).default([]),
});

const PodWireguardSchema = z.strictObject({
  interfaces: z.array(InterfaceSchema).default([]),
  dumpOverride: z.string().nullable().optional(),
  execError: z.string().nullable().optional(),
  eth0Mtu: z.number().int().positive().optional(),
}).nullable();

/** Schema of a WireGuard state file / `wireguard:` section ("namespace/pod" -> state). */
export const WireguardStateSchema: z.ZodType<WireguardState> = z.record(z.string(), PodWireguardSchema);

const ObjectRefSchema = z.strictObject({
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
});

const ClusterSchema = z.strictObject({
  base: z.string().optional(),
  objects: z.array(z.string()).default([]),
  delete: z.array(ObjectRefSchema).default([]),
  patch: z.array(ObjectRefSchema.extend({ merge: z.record(z.string(), z.unknown()) })).default([]),
  wireguard: WireguardStateSchema.optional(),
  forbid: z.array(z.string()).default([]),
  latencyMs: z.number().nonnegative().default(0),
  /** `/version` gitVersion of this cluster (default v1.31.4). */
  serverVersion: z.string().regex(/^v\d+\.\d+\.\d+/).optional(),
  down: z.boolean().default(false),
  logs: z.record(z.string(), z.string()).optional(),
  missingGroups: z.array(z.string().regex(/\./, "an API group such as ipam.liqo.io")).default([]),
  faults: z.array(FaultRuleSchema).default([]),
  lifecycle: LifecycleSchema.optional(),
});

const ExpectedResultSchema = z.union([
  StatusSchema,
  z.array(
    z.strictObject({ status: StatusSchema, peer: z.string().optional(), cluster: z.string().optional() }),
  ),
]);

const ScenarioFileSchema = z.strictObject({
  description: z.string(),
  referenceTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/).default(
    DEFAULT_REFERENCE_TIME,
  ),
  clusters: z.record(z.string(), ClusterSchema),
  network: NetworkModelSchema.optional(),
  run: z.strictObject({
    local: z.string(),
    remote: z.string().optional(),
    args: z.array(z.string()).default([]),
    networkProbes: z.boolean().default(false),
  }),
  expect: z.strictObject({
    exitCode: z.number().int(),
    diagnosis: z.string().nullable(),
    results: z.record(z.string(), ExpectedResultSchema).default({}),
    evidence: z.record(z.string(), z.array(z.string())).default({}),
    noOtherFailures: z.boolean().default(true),
    /** Active scenarios: the matrix pattern (local → remote grid) the run must show. */
    matrix: z.strictObject({
      redRows: z.array(z.string()).optional(),
      redCols: z.array(z.string()).optional(),
      allRed: z.boolean().optional(),
    }).optional(),
  }),
});

/** A base object named in `delete:` / `patch:`. */
export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** One cluster section of a scenario (defaults applied). */
export interface ScenarioCluster {
  base?: string;
  objects: string[];
  delete: ObjectRef[];
  patch: (ObjectRef & { merge: Record<string, unknown> })[];
  wireguard?: WireguardState;
  forbid: string[];
  latencyMs: number;
  serverVersion?: string;
  down: boolean;
  logs?: Record<string, string>;
  /** API groups not served (CRDs not installed), e.g. ["ipam.liqo.io"]. */
  missingGroups: string[];
  /** Injected faults (see faults.ts): path regexps as strings. */
  faults: FaultRule[];
  /** How written objects live on (active scenarios, see lifecycle.ts). */
  lifecycle?: Lifecycle;
}

/** Expected status for one check ID: for every result, or per peer/cluster. */
export type ExpectedResult = Status | { status: Status; peer?: string; cluster?: string }[];

/** scenario.yaml after validation (defaults applied). */
export interface ScenarioFile {
  description: string;
  referenceTime: string;
  clusters: Record<string, ScenarioCluster>;
  /** The data plane the probe commands see (active scenarios); absent = no network model. */
  network?: NetworkModel;
  run: { local: string; remote?: string; args: string[]; networkProbes: boolean };
  expect: {
    exitCode: number;
    diagnosis: string | null;
    results: Record<string, ExpectedResult>;
    evidence: Record<string, string[]>;
    noOtherFailures: boolean;
    /** Active scenarios: red rows/columns of the local → remote matrix grid. */
    matrix?: { redRows?: string[]; redCols?: string[]; allRed?: boolean };
  };
}

/** A loaded scenario: the validated scenario.yaml plus where it came from. */
export interface Scenario extends ScenarioFile {
  /** Folder name. */
  name: string;
  /** URL of the scenario folder (with trailing slash). */
  dir: string;
}

/** The schema of scenario.yaml. */
export const ScenarioSchema: z.ZodType<ScenarioFile> = ScenarioFileSchema;

/** Reads a text file from a file: or http(s): URL. */
export async function readText(url: URL): Promise<string> {
  if (url.protocol === "file:") return await Deno.readTextFile(url);
  const res = await fetch(url);
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`cannot read ${url.href}: HTTP ${res.status}`);
  }
  return await res.text();
}

async function readTextIfExists(url: URL): Promise<string | null> {
  try {
    return await readText(url);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    if (e instanceof Error && /HTTP 404/.test(e.message)) return null;
    throw e;
  }
}

/**
 * The testdata/ folder scenarios and base clusters load from: by default the checkout's, beside
 * this member; a program shipping its own copy (the CLI's demo, a bundle) points here with
 * {@link useTestdata}.
 */
let testdata = new URL("../testdata/", import.meta.url);

/** Makes `root` (a testdata/ folder URL, ending in "/") the folder scenarios load from. */
export function useTestdata(root: URL): void {
  testdata = root;
}

/** testdata/scenarios/: the passive scenario matrix. */
export function scenariosRoot(): URL {
  return new URL("scenarios/", testdata);
}

/** testdata/active/: the active-probe scenarios (kept apart from the passive matrix). */
export function activeScenariosRoot(): URL {
  return new URL("active/", testdata);
}

/** testdata/preflight/: two clusters before peering (`flyingfish preflight`), apart from both matrices. */
export function preflightScenariosRoot(): URL {
  return new URL("preflight/", testdata);
}

/** testdata/preflight-probe/: `preflight --probe` pairs, with the network model the probes cross. */
export function preflightProbeScenariosRoot(): URL {
  return new URL("preflight-probe/", testdata);
}

/** testdata/fleet/: the fleets (fakekube/fleet.ts). */
export function fleetRoot(): URL {
  return new URL("fleet/", testdata);
}

/** testdata/base/: the base example clusters. */
export function baseRoot(): URL {
  return new URL("base/", testdata);
}

/**
 * Scenario folder names (those with a scenario.yaml) under `root` (default testdata/scenarios/),
 * sorted. Works for file: URLs only.
 */
export async function listScenarios(root: URL = scenariosRoot()): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(root)) {
    if (!e.isDirectory) continue;
    try {
      await Deno.stat(new URL(`${e.name}/scenario.yaml`, root));
      out.push(e.name);
    } catch {
      // not a scenario folder
    }
  }
  return out.sort();
}

function formatZodError(err: z.ZodError): string {
  return err.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`).join("\n");
}

/**
 * Loads and validates `<root>/<name>/scenario.yaml`: root defaults to testdata/scenarios/, and a
 * name `active/<x>` means testdata/active/<x> (the active-probe scenarios).
 */
export async function loadScenario(name: string, root?: URL): Promise<Scenario> {
  const active = root === undefined && name.startsWith("active/");
  const dir = new URL(
    `${active ? name.slice("active/".length) : name}/`,
    root ?? (active ? activeScenariosRoot() : scenariosRoot()),
  );
  const file = new URL("scenario.yaml", dir);
  const raw = parse(await readText(file));
  const r = ScenarioSchema.safeParse(raw);
  if (!r.success) throw new Error(`invalid scenario ${name} (${file.href}):\n${formatZodError(r.error)}`);
  const s: Scenario = { ...r.data, name, dir: dir.href };
  // An active scenario always has a data plane: no `network:` block means a healthy one.
  if (!s.network && dir.href.startsWith(activeScenariosRoot().href)) s.network = NetworkModelSchema.parse({});
  for (const c of [s.run.local, ...(s.run.remote ? [s.run.remote] : [])]) {
    if (!s.clusters[c]) throw new Error(`scenario ${name}: run refers to unknown cluster "${c}"`);
  }
  return s;
}

/** Parses a multi-document YAML file of objects (each with apiVersion/kind). */
export function parseObjects(text: string, source: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0].message}`);
    const o = doc.toJS();
    if (o === null || o === undefined) continue;
    if (typeof o !== "object" || !o.apiVersion || !o.kind || !o.metadata?.name) {
      throw new Error(`${source}: every document must have apiVersion, kind and metadata.name`);
    }
    out.push(o as K8sObject);
  }
  return out;
}

const objKey = (kind: string, namespace: string | undefined, name: string): string =>
  `${kind}/${namespace ?? ""}/${name}`;
const keyOf = (o: K8sObject): string => objKey(o.kind ?? "", o.metadata.namespace, o.metadata.name);

/** Applies an RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target !== null && typeof target === "object" && !Array.isArray(target)
    ? { ...target as Record<string, unknown> }
    : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Shifts every RFC 3339 timestamp string in `v` by `deltaMs` (output without fractional seconds). */
export function shiftTimestamps<T>(v: T, deltaMs: number): T {
  if (typeof v === "string") {
    if (!RFC3339.test(v)) return v;
    const t = Date.parse(v);
    if (Number.isNaN(t)) return v;
    return new Date(t + deltaMs).toISOString().replace(/\.\d{3}Z$/, "Z") as T;
  }
  if (Array.isArray(v)) return v.map((x) => shiftTimestamps(x, deltaMs)) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = shiftTimestamps(x, deltaMs);
    return out as T;
  }
  return v;
}

const PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The PEM text a string carries when it holds a certificate: the string itself (raw PEM) or its
 * base64 decoding (as a binary string) when that is PEM; null otherwise. CSRs ("BEGIN CERTIFICATE
 * REQUEST") alone do not count.
 */
function pemCarried(s: string): { pem: string; base64: boolean } | null {
  if (s.includes(PEM_CERTIFICATE)) return { pem: s, base64: false };
  if (s.length < 64) return null;
  const clean = s.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) return null;
  let bin: string;
  try {
    bin = atob(clean);
  } catch {
    return null;
  }
  return bin.includes(PEM_CERTIFICATE) ? { pem: bin, base64: true } : null;
}

/** Base64 of a binary string, wrapped like `like` (one line, or lines of its first line's width). */
function base64Like(bin: string, like: string): string {
  const b64 = btoa(bin);
  const lines = like.split("\n").filter((l) => l.trim() !== "");
  if (lines.length < 2) return like.endsWith("\n") ? `${b64}\n` : b64;
  const width = lines[0].trim().length;
  const wrapped = b64.match(new RegExp(`.{1,${width}}`, "g"))?.join("\n") ?? b64;
  return like.endsWith("\n") ? `${wrapped}\n` : wrapped;
}

/**
 * Re-issues every X.509 certificate carried by a string of `v` (raw PEM, or base64 of PEM as in
 * Identity `spec.authParams.signedCRT` / `ca` and Secret data) with notBefore/notAfter moved by
 * `deltaMs`, keeping the string's shape (see tls.ts shiftPemCertificates: same names, serial, key and
 * extensions, signed by a throw-away key). Without this, certificate expiry checks would depend on the
 * wall clock while every other scenario time follows "now". Returns `v` itself when `deltaMs` is 0.
 */
export async function shiftCertificates<T>(v: T, deltaMs: number): Promise<T> {
  if (deltaMs === 0) return v;
  const pending = new Map<string, Promise<string> | null>();
  const collect = (x: unknown): void => {
    if (typeof x === "string") {
      if (pending.has(x)) return;
      const c = pemCarried(x);
      pending.set(
        x,
        c === null
          ? null
          : shiftPemCertificates(c.pem, deltaMs).then((pem) =>
            pem === c.pem ? x : c.base64 ? base64Like(pem, x) : pem
          ),
      );
    } else if (Array.isArray(x)) x.forEach(collect);
    else if (x !== null && typeof x === "object") Object.values(x).forEach(collect);
  };
  collect(v);
  const jobs = [...pending].filter((e): e is [string, Promise<string>] => e[1] !== null);
  const shifted = new Map(await Promise.all(jobs.map(async ([k, p]) => [k, await p] as const)));
  if (shifted.size === 0) return v;
  const replace = (x: unknown): unknown => {
    if (typeof x === "string") return shifted.get(x) ?? x;
    if (Array.isArray(x)) return x.map(replace);
    if (x !== null && typeof x === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) out[k] = replace(y);
      return out;
    }
    return x;
  };
  return replace(v) as T;
}

function parseWireguard(text: string, source: string): WireguardState {
  const r = WireguardStateSchema.safeParse(parse(text) ?? {});
  if (!r.success) throw new Error(`invalid WireGuard state ${source}:\n${formatZodError(r.error)}`);
  return r.data;
}

/** A base example cluster: its objects and WireGuard state. */
export interface ParsedBase {
  objects: K8sObject[];
  wireguard: WireguardState;
}

/**
 * Parsed base files by URL: the base YAML (~180 kB each) is parsed once per process and every use
 * gets a deep copy (structuredClone), so scenarios may mutate what they get.
 */
const baseCache = new Map<string, Promise<ParsedBase>>();

async function parseBase(base: string): Promise<ParsedBase> {
  const baseUrl = new URL(`${base}.yaml`, baseRoot());
  const objects = parseObjects(await readText(baseUrl), baseUrl.href);
  const wgUrl = new URL(`${base}.wireguard.yaml`, baseRoot());
  const wgText = await readTextIfExists(wgUrl);
  const wireguard = wgText !== null ? parseWireguard(wgText, wgUrl.href) : {};
  return { objects, wireguard };
}

/** The base example cluster `base` (testdata/base/<base>.yaml and .wireguard.yaml), deep-copied. */
export async function loadBase(base: string): Promise<ParsedBase> {
  const key = new URL(`${base}.yaml`, baseRoot()).href;
  let parsed = baseCache.get(key);
  if (!parsed) {
    parsed = parseBase(base);
    baseCache.set(key, parsed);
    parsed.catch(() => baseCache.delete(key));
  }
  return structuredClone(await parsed);
}

/** What cluster `cluster` of scenario `s` serves. */
export async function buildClusterConfig(
  s: Scenario,
  cluster: string,
  now: Date = new Date(),
): Promise<FakeClusterConfig> {
  const c = s.clusters[cluster];
  if (!c) throw new Error(`scenario ${s.name}: no cluster "${cluster}"`);
  const dir = new URL(s.dir);
  const ctx = `scenario ${s.name}, cluster ${cluster}`;

  let objects: K8sObject[] = [];
  let wireguard: WireguardState = {};
  if (c.base) ({ objects, wireguard } = await loadBase(c.base));

  for (const f of c.objects) {
    const u = new URL(f, dir);
    for (const o of parseObjects(await readText(u), u.href)) {
      const i = objects.findIndex((x) => keyOf(x) === keyOf(o));
      if (i >= 0) objects[i] = o;
      else objects.push(o);
    }
  }

  for (const d of c.delete) {
    const k = objKey(d.kind, d.namespace, d.name);
    const i = objects.findIndex((x) => keyOf(x) === k);
    if (i < 0) throw new Error(`${ctx}: delete: no object ${k}`);
    objects.splice(i, 1);
  }

  for (const p of c.patch) {
    const k = objKey(p.kind, p.namespace, p.name);
    const i = objects.findIndex((x) => keyOf(x) === k);
    if (i < 0) throw new Error(`${ctx}: patch: no object ${k}`);
    const group = (objects[i].apiVersion ?? "").split("/").slice(0, -1).join("/");
    if (group.endsWith("liqo.io")) {
      throw new Error(
        `${ctx}: patch: ${k} is a Liqo object (${
          objects[i].apiVersion
        }); merge patches are not allowed on *.liqo.io ` +
          `kinds — put the full object in an overlay file (objects: [...]) so the validator sees what is served`,
      );
    }
    objects[i] = mergePatch(objects[i], p.merge) as K8sObject;
  }

  if (c.wireguard) {
    for (const [k, v] of Object.entries(c.wireguard)) wireguard[k] = v;
  }

  const delta = now.getTime() - Date.parse(s.referenceTime);
  return {
    name: cluster,
    objects: await shiftCertificates(shiftTimestamps(objects, delta), delta),
    wireguard,
    forbid: c.forbid,
    latencyMs: c.latencyMs,
    ...(c.serverVersion ? { serverVersion: c.serverVersion } : {}),
    ...(c.logs ? { logs: c.logs } : {}),
    ...(c.missingGroups.length ? { missingGroups: c.missingGroups } : {}),
    ...(c.faults.length ? { faults: c.faults } : {}),
    ...(c.lifecycle ? { lifecycle: c.lifecycle } : {}),
  };
}

/** A scenario being served. */
export interface ServedScenario {
  scenario: Scenario;
  /** Running clusters by name; null for `down: true` clusters. */
  clusters: Record<string, FakeCluster | null>;
  /** Kubeconfig for one cluster (a down cluster's points at a closed 127.0.0.1 port). */
  kubeconfigYaml(cluster: string): string;
  /** Stops every server. */
  close(): Promise<void>;
}

function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts one fake API server per cluster of `s` (except `down: true` ones). */
export async function serveScenario(
  s: Scenario,
  opts: {
    tls?: boolean;
    now?: Date;
    /** Virtual clock for the WireGuard transfer counters (see FakeClusterConfig). */
    execClockStepSeconds?: number;
  } = {},
): Promise<ServedScenario> {
  const now = opts.now ?? new Date();
  const tls = opts.tls ?? true;
  const clusters: Record<string, FakeCluster | null> = {};
  const downConfigs: Record<string, string> = {};
  // One data plane for every cluster of the scenario: packets cross between them.
  const network = s.network ? createNetworkHost(s.network) : undefined;
  // Liqo's reflection between the served clusters (offloaded namespaces appear in the provider).
  const reflection = s.network ? new LiqoReflection() : undefined;
  try {
    for (const name of Object.keys(s.clusters)) {
      if (s.clusters[name].down) {
        const port = closedPort();
        const url = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
        // A real kubeconfig carries its cluster's CA: give the unreachable one a (throw-away) CA too.
        const ca = tls ? (await generateTlsMaterial()).caPem : null;
        downConfigs[name] = kubeconfigFor(name, url, ca, "ff-unreachable");
        clusters[name] = null;
        continue;
      }
      const cfg = await buildClusterConfig(s, name, now);
      clusters[name] = await startFakeCluster({
        ...cfg,
        tls,
        execClockStepSeconds: opts.execClockStepSeconds,
        ...(network ? { network } : {}),
        ...(reflection ? { reflection } : {}),
      });
    }
  } catch (e) {
    await Promise.all(Object.values(clusters).map((c) => c?.close()));
    throw e;
  }
  return {
    scenario: s,
    clusters,
    kubeconfigYaml: (name: string): string => {
      const c = clusters[name];
      if (c) return c.kubeconfigYaml();
      const d = downConfigs[name];
      if (d === undefined) throw new Error(`scenario ${s.name}: no cluster "${name}"`);
      return d;
    },
    close: async () => {
      await Promise.all(Object.values(clusters).map((c) => c?.close()));
    },
  };
}
