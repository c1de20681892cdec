/**
 * Watches for the fake API server: resourceVersions, a change history, and `?watch=1` streams of
 * newline-delimited JSON events, the way kube-apiserver serves them.
 *
 * - Every change made through {@link WatchHub.replace} (the server's `replaceObjects`) gets the next
 *   resourceVersion, stamped on the object; lists report the current one.
 * - `watch=1&resourceVersion=<rv>` replays the changes after `rv`, then streams new ones. An `rv`
 *   older than the history kept (see {@link WatchHub.compact}) gets an ERROR event with a 410
 *   Expired Status, as a real server sends it; no `rv` (or "0") starts with an ADDED per object.
 * - Selectors and namespaces filter events like a real server: an object that stops matching is
 *   DELETED for that watch, one that starts matching is ADDED.
 * - `allowWatchBookmarks=true` gets a BOOKMARK every `bookmarkMs` and on {@link WatchHub.bookmark}.
 * - `timeoutSeconds` ends the stream cleanly; {@link WatchHub.breakAll} cuts every stream mid-body.
 */
import type { K8sObject } from "./object.ts";
import type { Matcher } from "./selectors.ts";

/** A resource the server serves: the part a watch needs. */
export interface WatchedResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  objects: K8sObject[];
}

type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

/** One recorded change of one object. */
interface Change {
  rv: number;
  /** group/version/plural, as the server keys its resources. */
  resource: string;
  type: ChangeType;
  object: K8sObject;
  /** The object before a MODIFIED (to tell selector entries and exits apart). */
  before: K8sObject | null;
}

interface Stream {
  resource: string;
  namespace: string | undefined;
  matchers: Matcher[];
  apiVersion: string;
  kind: string;
  bookmarks: boolean;
  send(line: unknown): void;
  end(): void;
  fail(): void;
}

/** Options of a {@link WatchHub}. */
export interface WatchHubOptions {
  /** Changes kept for resuming watches (default 1000); older resourceVersions get 410. */
  historyLimit?: number;
  /** Interval of BOOKMARK events to watches that allow them (default 60 s, like kube-apiserver). */
  bookmarkMs?: number;
}

const keyOf = (o: K8sObject): string => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** The object without its resourceVersion, as JSON: what decides "changed". */
function contentOf(o: K8sObject): string {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return JSON.stringify({ ...o, metadata: meta });
}

function withRv(o: K8sObject, rv: number): K8sObject {
  return { ...o, metadata: { ...o.metadata, resourceVersion: String(rv) } };
}

/** The watch side of one fake cluster. */
export class WatchHub {
  #rv: number;
  /** The oldest resourceVersion a watch may resume from. */
  #oldest: number;
  readonly #history: Change[] = [];
  readonly #streams = new Set<Stream>();
  readonly #limit: number;
  readonly #bookmarkMs: number;

  /** A hub whose first resourceVersion is `initialRv` (the list resourceVersion before any change). */
  constructor(initialRv: number, opts: WatchHubOptions = {}) {
    this.#rv = initialRv;
    this.#oldest = initialRv;
    this.#limit = opts.historyLimit ?? 1000;
    this.#bookmarkMs = opts.bookmarkMs ?? 60_000;
  }

  /** The current resourceVersion (what a list reports). */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Watch streams open now. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /**
   * Moves from `before` to `after` (resources keyed group/version/plural): every object added,
   * changed (ignoring its resourceVersion) or removed becomes a change with the next
   * resourceVersion, stamped on the object in `after` (unchanged objects keep theirs), and goes to
   * the open watches. Returns how many changes there were.
   */
  replace(before: ReadonlyMap<string, WatchedResource>, after: Map<string, WatchedResource>): number {
    let n = 0;
    const record = (resource: string, type: ChangeType, object: K8sObject, prev: K8sObject | null) => {
      const change: Change = { rv: ++this.#rv, resource, type, object, before: prev };
      this.#history.push(change);
      n++;
      for (const s of this.#streams) this.#deliver(s, change);
      return change.rv;
    };
    const keys = new Set([...before.keys(), ...after.keys()]);
    for (const resource of [...keys].sort()) {
      const old = new Map((before.get(resource)?.objects ?? []).map((o) => [keyOf(o), o]));
      const next = after.get(resource);
      const objects = next?.objects ?? [];
      for (let i = 0; i < objects.length; i++) {
        const o = objects[i];
        const prev = old.get(keyOf(o));
        old.delete(keyOf(o));
        if (prev && contentOf(prev) === contentOf(o)) {
          objects[i] = prev;
          continue;
        }
        const rv = this.#rv + 1;
        objects[i] = withRv(o, rv);
        record(resource, prev ? "MODIFIED" : "ADDED", this.#typed(next!, objects[i]), prev ?? null);
      }
      for (const gone of old.values()) {
        const res = before.get(resource)!;
        record(resource, "DELETED", this.#typed(res, withRv(gone, this.#rv + 1)), null);
      }
    }
    while (this.#history.length > this.#limit) this.#oldest = this.#history.shift()!.rv;
    return n;
  }

  /** Forgets the history: a watch from any earlier resourceVersion now gets 410 Expired. */
  compact(): void {
    this.#history.length = 0;
    this.#oldest = this.#rv;
  }

  /** Sends a BOOKMARK now to every watch that allows them. */
  bookmark(): void {
    for (const s of this.#streams) this.#bookmark(s);
  }

  /** Cuts every open watch stream mid-body (the client sees a broken connection). */
  breakAll(): void {
    for (const s of [...this.#streams]) s.fail();
  }

  /** Ends every open watch stream cleanly (as the server's timeout does). */
  endAll(): void {
    for (const s of [...this.#streams]) s.end();
  }

  /**
   * Serves one `?watch=1` request on resource `r` (namespace and selectors already parsed); the
   * stream ends at `timeoutSeconds`, on {@link WatchHub.endAll}, or when `closing` aborts.
   */
  serve(
    r: WatchedResource,
    url: URL,
    namespace: string | undefined,
    matchers: Matcher[],
    closing: AbortSignal,
  ): Response {
    const resource = `${r.group}/${r.version}/${r.plural}`;
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    const rvParam = url.searchParams.get("resourceVersion") ?? "";
    const timeoutRaw = url.searchParams.get("timeoutSeconds");
    const timeoutMs = timeoutRaw && /^\d+$/.test(timeoutRaw) ? Number(timeoutRaw) * 1000 : 30 * 60_000;
    const bookmarks = url.searchParams.get("allowWatchBookmarks") === "true";
    const enc = new TextEncoder();
    let stream: Stream | null = null;
    const body = new ReadableStream<Uint8Array>({
      start: (ctl) => {
        let over = false;
        const timers: ReturnType<typeof setTimeout>[] = [];
        const finish = (): void => {
          over = true;
          for (const t of timers) clearTimeout(t);
          clearInterval(ticker);
          closing.removeEventListener("abort", onClosing);
          if (stream) this.#streams.delete(stream);
        };
        const s: Stream = {
          resource,
          namespace,
          matchers,
          apiVersion,
          kind: r.kind,
          bookmarks,
          send: (line) => {
            if (!over) ctl.enqueue(enc.encode(JSON.stringify(line) + "\n"));
          },
          end: () => {
            if (over) return;
            finish();
            ctl.close();
          },
          fail: () => {
            if (over) return;
            finish();
            ctl.error(new Error("fakekube: watch stream cut"));
          },
        };
        stream = s;
        const onClosing = (): void => s.end();
        closing.addEventListener("abort", onClosing, { once: true });
        timers.push(setTimeout(() => s.end(), timeoutMs));
        const ticker = setInterval(() => this.#bookmark(s), this.#bookmarkMs);
        const from = /^\d+$/.test(rvParam) ? Number(rvParam) : 0;
        if (from === 0) {
          // No resourceVersion: the current state as ADDED events, then the changes.
          for (const o of r.objects) {
            const typed = this.#typed(r, o);
            if (this.#matches(s, typed)) s.send({ type: "ADDED", object: typed });
          }
        } else if (from < this.#oldest) {
          s.send({
            type: "ERROR",
            object: {
              kind: "Status",
              apiVersion: "v1",
              metadata: {},
              status: "Failure",
              message: `too old resource version: ${from} (${this.#oldest})`,
              reason: "Expired",
              code: 410,
            },
          });
          s.end();
          return;
        } else {
          for (const c of this.#history) if (c.rv > from) this.#deliver(s, c);
        }
        if (closing.aborted) return s.end();
        this.#streams.add(s);
      },
      cancel: () => {
        if (stream) stream.end();
      },
    });
    return new Response(body, {
      status: 200,
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    });
  }

  #typed(r: Pick<WatchedResource, "group" | "version" | "kind">, o: K8sObject): K8sObject {
    return { ...o, apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind };
  }

  #matches(s: Stream, o: K8sObject): boolean {
    return (s.namespace === undefined || o.metadata.namespace === s.namespace) &&
      s.matchers.every((m) => m(o));
  }

  #deliver(s: Stream, c: Change): void {
    if (c.resource !== s.resource) return;
    const now = this.#matches(s, c.object);
    if (c.type === "MODIFIED") {
      const was = c.before !== null && this.#matches(s, c.before);
      if (now && was) s.send({ type: "MODIFIED", object: c.object });
      else if (now) s.send({ type: "ADDED", object: c.object });
      else if (was) s.send({ type: "DELETED", object: c.object });
      return;
    }
    if (now) s.send({ type: c.type, object: c.object });
  }

  #bookmark(s: Stream): void {
    if (!s.bookmarks) return;
    s.send({
      type: "BOOKMARK",
      object: { kind: s.kind, apiVersion: s.apiVersion, metadata: { resourceVersion: String(this.#rv) } },
    });
  }
}

/** True for a `?watch=1` (or `watch=true`) request. */
export function isWatchRequest(url: URL): boolean {
  const w = url.searchParams.get("watch");
  return w === "1" || w === "true";
}
