/**
 * The support-bundle format of `flyingfish collect`: a gzip-compressed ustar archive under a
 * `flyingfish-bundle/` folder, written with a small tar writer of our own and Web
 * `CompressionStream("gzip")`, read back with `DecompressionStream`. Every JSON file read back is
 * validated with zod.
 *
 * ```
 * flyingfish-bundle/manifest.json
 * flyingfish-bundle/clusters/<local|remote>/version.json
 * flyingfish-bundle/clusters/<name>/discovery.json
 * flyingfish-bundle/clusters/<name>/lists/<kind>.json
 * flyingfish-bundle/clusters/<name>/exec/<ns>/<pod>/<container>/<cmd-slug>.json
 * flyingfish-bundle/clusters/<name>/logs/<ns>/<pod>/<container>.log
 * ```
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";

/** Major version of the bundle format this FlyingFish writes and reads. */
export const BUNDLE_FORMAT_VERSION = 1;
/** Top folder of every bundle. */
export const BUNDLE_ROOT = "flyingfish-bundle";

// ---------------------------------------------------------------------------------------------
// Schemas

const UnavailableSchema = z.enum(["forbidden", "missing", "error"]);

/** What the manifest says about one kind's list. */
export const KindEntrySchema = z.union([
  z.object({ state: z.literal("ok"), count: z.number().int().nonnegative() }),
  z.object({ state: UnavailableSchema, message: z.string() }),
]);

/** What the manifest says about one exec or log capture. */
export const CaptureEntrySchema = z.object({
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  /** The command (exec) or "logs". */
  what: z.string(),
  /** Path of the stored file, relative to the bundle root (absent when refused). */
  file: z.string().optional(),
  state: z.enum(["ok", "refused"]),
  reason: z.string().optional(),
});

/** Counts of scrubbed values per kind of secret, e.g. `{ pem: 2, bearer: 1, env: 14 }`. */
export const ScrubCountsSchema = z.record(z.string(), z.number().int().nonnegative());

/** The namespaces a collect kept workload objects of, and what it left out or reduced per kind. */
export const ScopeSchema = z.object({
  namespaces: z.array(z.string()),
  /** Objects left out, per kind. */
  dropped: z.record(z.string(), z.number().int().nonnegative()).default({}),
  /** Objects reduced to their name and namespace, per kind. */
  nameOnly: z.record(z.string(), z.number().int().nonnegative()).default({}),
});

/** One captured cluster in the manifest. */
export const ManifestClusterSchema = z.object({
  /** Folder name under clusters/: "local" or "remote". */
  name: z.string().regex(/^[a-z0-9-]+$/),
  role: z.enum(["local", "remote"]),
  /** kubeconfig context name. */
  context: z.string(),
  /** API server URL (no credentials). */
  server: z.string(),
  /** Liqo cluster ID, when known. */
  clusterId: z.string().nullable(),
  /** Set when the cluster could not be captured at all. */
  error: z.string().optional(),
  /** When the lists of this cluster were read (the time checks judge against). */
  capturedAt: z.string().optional(),
  kinds: z.record(z.string(), KindEntrySchema).default({}),
  discovery: z.object({ state: z.string(), message: z.string().optional() }).optional(),
  version: z.object({ state: z.string(), message: z.string().optional() }).optional(),
  exec: z.array(CaptureEntrySchema).default([]),
  logs: z.array(CaptureEntrySchema).default([]),
  /** What redaction scrubbed in this cluster's files, per kind of secret (absent in older bundles). */
  scrubbed: ScrubCountsSchema.optional(),
  /** What the namespaced workload kinds were narrowed to (absent in older bundles). */
  scope: ScopeSchema.optional(),
  /** Objects left out because they nest too deeply to process (kube/depth.ts; absent when none). */
  skipped: z.array(z.object({
    kind: z.string(),
    namespace: z.string().optional(),
    name: z.string(),
    reason: z.string(),
  })).optional(),
});

/** manifest.json. */
export const ManifestSchema = z.object({
  formatVersion: z.number().int().positive(),
  tool: z.object({ name: z.string(), version: z.string() }),
  capturedAt: z.string(),
  /** Options the capture ran with (for the reader's information). */
  options: z.object({
    redactIps: z.boolean(),
    sampleIntervalMs: z.number(),
    logTailLines: z.number(),
    logLimitBytes: z.number(),
  }),
  clusters: z.array(ManifestClusterSchema).min(1),
  /** What redaction did, in words. */
  redaction: z.array(z.string()).default([]),
  /**
   * What redaction scrubbed in the whole bundle, per kind of secret (the sum of the clusters'). Added
   * within format 1: optional, and readers of format 1 that predate it ignore it.
   */
  scrubbed: ScrubCountsSchema.optional(),
});

/** The parsed manifest. */
export type Manifest = z.infer<typeof ManifestSchema>;
/** One cluster in the manifest. */
export type ManifestCluster = z.infer<typeof ManifestClusterSchema>;
/** One exec/log capture entry. */
export type CaptureEntry = z.infer<typeof CaptureEntrySchema>;

/** One recorded exec (a file under exec/). */
export const ExecRecordSchema = z.object({
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  command: z.array(z.string()),
  /** One entry per time the command ran, in order (`wg show all dump` runs twice). */
  runs: z.array(z.union([
    z.object({
      ok: z.literal(true),
      stdout: z.string(),
      stderr: z.string(),
      exitCode: z.number().int(),
      /** Milliseconds since the epoch when the output was received. */
      takenAt: z.number(),
    }),
    z.object({ ok: z.literal(false), reason: UnavailableSchema, message: z.string() }),
  ])).min(1),
});

/** One recorded exec. */
export type ExecRecord = z.infer<typeof ExecRecordSchema>;

/** A stored list: the items, or why the kind could not be listed. */
export const ListFileSchema = z.union([
  z.object({ ok: z.literal(true), items: z.array(z.record(z.string(), z.unknown())) }),
  z.object({ ok: z.literal(false), reason: UnavailableSchema, message: z.string() }),
]);

/** discovery.json. */
export const DiscoveryFileSchema = z.union([
  z.object({
    ok: z.literal(true),
    groups: z.array(z.object({ group: z.string(), version: z.string(), resources: z.array(z.string()) })),
  }),
  z.object({ ok: z.literal(false), reason: UnavailableSchema, message: z.string() }),
]);

// ---------------------------------------------------------------------------------------------
// Layout

/** A path segment safe in a tar name (no slashes, no dot-only names). */
export function safeSegment(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80);
  return clean === "" || /^\.+$/.test(clean) ? "_" : clean;
}

/** File-name slug of a command, e.g. `wg show all dump` → `wg-show-all-dump`. */
export function commandSlug(command: readonly string[]): string {
  const slug = command.join(" ").replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100);
  return slug === "" ? "command" : slug;
}

/** Bundle paths of one cluster's files. */
export const layout = {
  manifest: `${BUNDLE_ROOT}/manifest.json`,
  version: (c: string): string => `${BUNDLE_ROOT}/clusters/${c}/version.json`,
  discovery: (c: string): string => `${BUNDLE_ROOT}/clusters/${c}/discovery.json`,
  list: (c: string, kind: string): string => `${BUNDLE_ROOT}/clusters/${c}/lists/${safeSegment(kind)}.json`,
  exec: (c: string, ns: string, pod: string, container: string, command: readonly string[]): string =>
    `${BUNDLE_ROOT}/clusters/${c}/exec/${safeSegment(ns)}/${safeSegment(pod)}/${safeSegment(container)}/${
      commandSlug(command)
    }.json`,
  log: (c: string, ns: string, pod: string, container: string): string =>
    `${BUNDLE_ROOT}/clusters/${c}/logs/${safeSegment(ns)}/${safeSegment(pod)}/${safeSegment(container)}.log`,
} as const;

// ---------------------------------------------------------------------------------------------
// ustar

const BLOCK = 512;
const enc = new TextEncoder();
const dec = new TextDecoder();

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function putString(buf: Uint8Array, off: number, len: number, s: string): void {
  const b = enc.encode(s);
  if (b.length > len) throw new Error(`tar field too long: ${s}`);
  buf.set(b, off);
}

function truncateUtf8(s: string, max: number): string {
  let out = s;
  while (enc.encode(out).length > max) out = out.slice(0, -1);
  return out;
}

/** PAX extended header data carrying a long path (`<len> path=<path>\n`). */
function paxPath(path: string): Uint8Array {
  const body = ` path=${path}\n`;
  const n = enc.encode(body).length;
  let len = n + String(n).length;
  if (String(len).length !== String(n).length) len = n + String(len).length;
  return enc.encode(`${len}${body}`);
}

function splitName(path: string): { name: string; prefix: string } | null {
  if (enc.encode(path).length <= 100) return { name: path, prefix: "" };
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (enc.encode(prefix).length <= 155 && enc.encode(name).length <= 100 && name !== "") {
      return { name, prefix };
    }
  }
  return null;
}

function header(path: string, size: number, mtimeSec: number, type: "0" | "x"): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const { name, prefix } = splitName(path) ??
    { name: truncateUtf8(path.split("/").pop() ?? "long", 99), prefix: "" };
  putString(h, 0, 100, name);
  putString(h, 100, 8, octal(0o644, 8));
  putString(h, 108, 8, octal(0, 8));
  putString(h, 116, 8, octal(0, 8));
  putString(h, 124, 12, octal(size, 12));
  putString(h, 136, 12, octal(Math.max(0, Math.floor(mtimeSec)), 12));
  h.fill(0x20, 148, 156); // checksum placeholder: spaces
  putString(h, 156, 1, type);
  putString(h, 257, 6, "ustar\0");
  putString(h, 263, 2, "00");
  putString(h, 265, 32, "flyingfish");
  putString(h, 297, 32, "flyingfish");
  putString(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  putString(h, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** One file in an archive. */
export interface TarEntry {
  path: string;
  data: Uint8Array;
}

/** Builds an uncompressed ustar archive (regular files; parent directories are implied; PAX `path` for long names). */
export function tarPack(entries: readonly TarEntry[], mtime: Date = new Date()): Uint8Array {
  const parts: Uint8Array[] = [];
  const mt = mtime.getTime() / 1000;
  let size = 0;
  for (const e of entries) {
    if (splitName(e.path) === null) {
      const pax = paxPath(e.path);
      parts.push(
        header(`PaxHeaders/${truncateUtf8(e.path.split("/").pop() ?? "x", 80)}`, pax.length, mt, "x"),
      );
      parts.push(pax);
      size += BLOCK + pax.length;
      const padPax = (BLOCK - (pax.length % BLOCK)) % BLOCK;
      if (padPax) parts.push(new Uint8Array(padPax)), size += padPax;
    }
    const h = header(e.path, e.data.length, mt, "0");
    parts.push(h, e.data);
    size += BLOCK + e.data.length;
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad)), size += pad;
  }
  parts.push(new Uint8Array(BLOCK * 2));
  size += BLOCK * 2;
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) out.set(p, off), off += p.length;
  return out;
}

function readString(buf: Uint8Array, off: number, len: number): string {
  const slice = buf.subarray(off, off + len);
  const end = slice.indexOf(0);
  return dec.decode(end < 0 ? slice : slice.subarray(0, end));
}

function readOctal(buf: Uint8Array, off: number, len: number): number {
  const s = readString(buf, off, len).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) throw new Error(`bad octal field "${s}"`);
  return parseInt(s, 8);
}

/** Reads a ustar archive into its regular files (directories and other types are skipped). */
export function tarUnpack(tar: Uint8Array): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  let longPath: string | null = null;
  while (off + BLOCK <= tar.length) {
    const h = tar.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
    if (sum !== readOctal(h, 148, 8)) throw new Error(`tar header checksum mismatch at offset ${off}`);
    const name = readString(h, 0, 100);
    const prefix = readString(h, 345, 155);
    const size = readOctal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 0x30);
    const start = off + BLOCK;
    if (start + size > tar.length) throw new Error("truncated tar archive");
    if (type === "x") {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(dec.decode(tar.subarray(start, start + size)));
      longPath = m ? m[1] : null;
    } else if (type === "0" || type === "\0") {
      out.push({
        path: longPath ?? (prefix ? `${prefix}/${name}` : name),
        data: tar.slice(start, start + size),
      });
      longPath = null;
    }
    off = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}

async function pipeThrough(
  data: Uint8Array,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const piped = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

/** gzip-compresses bytes. */
export function gzip(data: Uint8Array): Promise<Uint8Array> {
  return pipeThrough(data, new CompressionStream("gzip"));
}

/** gunzips bytes. */
export function gunzip(data: Uint8Array): Promise<Uint8Array> {
  return pipeThrough(data, new DecompressionStream("gzip"));
}

/** Packs and compresses files into .tar.gz bytes. */
export async function packBundle(entries: readonly TarEntry[], mtime?: Date): Promise<Uint8Array> {
  return await gzip(tarPack(entries, mtime));
}

/** Decompresses and unpacks .tar.gz bytes into a path → bytes map. */
export async function unpackBundle(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  let tar: Uint8Array;
  try {
    tar = await gunzip(bytes);
  } catch (err) {
    throw new ToolError(`not a FlyingFish bundle (gzip): ${err instanceof Error ? err.message : err}`, {
      cause: err,
    });
  }
  try {
    return new Map(tarUnpack(tar).map((e) => [e.path, e.data]));
  } catch (err) {
    throw new ToolError(`not a FlyingFish bundle (tar): ${err instanceof Error ? err.message : err}`, {
      cause: err,
    });
  }
}

/** JSON text of a value, as written into bundles. */
export function jsonBytes(v: unknown): Uint8Array {
  return enc.encode(JSON.stringify(v, null, 1) + "\n");
}

/** Parses a bundle file as JSON against a schema; a clear ToolError when absent or invalid. */
export function readJson<T>(files: Map<string, Uint8Array>, path: string, schema: z.ZodType<T>): T {
  const data = files.get(path);
  if (!data) throw new ToolError(`bundle is incomplete: ${path} is missing`);
  let raw: unknown;
  try {
    raw = JSON.parse(dec.decode(data));
  } catch {
    throw new ToolError(`bundle file ${path} is not valid JSON`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new ToolError(
      `bundle file ${path} is not in the expected format: ${
        first?.path.join(".") || "(root)"
      }: ${first?.message}`,
    );
  }
  return r.data;
}

/** Refuses a manifest of another major format version with a one-line ToolError. */
export function checkFormatVersion(raw: unknown): void {
  const v = (raw as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof v !== "number" || !Number.isInteger(v)) {
    throw new ToolError("not a FlyingFish bundle: manifest.json has no formatVersion");
  }
  if (v > BUNDLE_FORMAT_VERSION) {
    throw new ToolError(
      `bundle format ${v} is newer than this FlyingFish understands (${BUNDLE_FORMAT_VERSION}); upgrade FlyingFish`,
    );
  }
  if (v < BUNDLE_FORMAT_VERSION) {
    throw new ToolError(
      `bundle format ${v} is older than this FlyingFish understands (${BUNDLE_FORMAT_VERSION}); re-collect it with this version`,
    );
  }
}

/** Reads and validates manifest.json (format version first). */
export function readManifest(files: Map<string, Uint8Array>): Manifest {
  const data = files.get(layout.manifest);
  if (!data) throw new ToolError(`not a FlyingFish bundle: ${layout.manifest} is missing`);
  let raw: unknown;
  try {
    raw = JSON.parse(dec.decode(data));
  } catch {
    throw new ToolError("not a FlyingFish bundle: manifest.json is not valid JSON");
  }
  checkFormatVersion(raw);
  return readJson(files, layout.manifest, ManifestSchema);
}
