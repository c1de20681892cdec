/**
 * Paginated lists (`limit` + `continue`) through the cluster's client, with every object reduced on
 * read: no managedFields, no last-applied-configuration, and secrets cut down to their public facts
 * (only the `publicKey` data key survives) before anything else sees them.
 */
import { z } from "zod";
import { describeList, listPath, selectorsOf } from "../kinds.ts";
import type { KindSpec, ListScope } from "../kinds.ts";
import type { K8sObject, ListOptions, ListOutcome } from "../source.ts";
import type { KubeClient } from "./client.ts";
import { afterRetries } from "../http.ts";

/** Page size of list requests. */
export const LIST_PAGE_SIZE = 500;
/** Annotation added to every secret, listing the data keys that were removed on read. */
export const REDACTED_KEYS_ANNOTATION = "flyingfish.io/redacted-keys";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Secret data keys kept on read (public by nature). */
const KEPT_SECRET_KEYS: ReadonlySet<string> = new Set(["publicKey"]);
const MAX_PAGES = 2000;

const WG_KEY = /^[A-Za-z0-9+/]{43}=$/;

/**
 * True when a Secret's `publicKey` is a WireGuard key: 32 bytes of base64, as the value itself or
 * base64-encoded once more (as Secret data). Anything else (a PEM block, a private key stored under
 * the wrong name) is removed like any other data key.
 */
export function isWireguardKey(v: unknown): boolean {
  if (typeof v !== "string") return false;
  if (WG_KEY.test(v)) return true;
  try {
    return WG_KEY.test(atob(v));
  } catch {
    return false;
  }
}

/** A JSON object (not an array). */
function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** An object with an object as metadata; a missing metadata becomes `{ name: "" }` first. */
function isObject(x: Record<string, unknown>): x is K8sObject {
  x.metadata ??= { name: "" };
  return isRecord(x.metadata);
}

/**
 * A list answer as it comes off the wire. Missing data must never read as "nothing there": a body
 * that is not an object, an `items` that is not an array (a string, null, a bare JSON array body) or
 * an item that is not an object makes the whole list unreadable; an empty `continue` ends it.
 */
const ListBody = z.object({
  items: z.array(z.record(z.string(), z.unknown())),
  metadata: z.object({ continue: z.string().optional().catch(undefined) }).optional().catch(undefined),
});

/** Why a list body is not a list, in one line (the first schema issue). */
function malformedList(plural: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join(".") : "body";
  return `listing ${plural}: malformed list response (${where}: ${issue?.message ?? "not a list"})`;
}

/**
 * Removes what must never reach the inventory: `metadata.managedFields` and the
 * last-applied-configuration annotation on every object; on secrets, every `data` key except
 * a `publicKey` that is a WireGuard key ({@link isWireguardKey}) and all of `stringData`, recording
 * the removed keys in
 * `flyingfish.io/redacted-keys`. Mutates and returns the object.
 */
export function sanitizeObject(obj: K8sObject): K8sObject {
  const meta = obj.metadata ?? (obj.metadata = { name: "" });
  delete meta.managedFields;
  if (meta.annotations) {
    delete meta.annotations[LAST_APPLIED];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  if (obj.kind === "Secret") {
    const removed = new Set<string>();
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(isRecord(obj.data) ? obj.data : {})) {
      if (KEPT_SECRET_KEYS.has(k) && isWireguardKey(v)) kept[k] = v;
      else removed.add(k);
    }
    for (const k of Object.keys(isRecord(obj.stringData) ? obj.stringData : {})) removed.add(k);
    delete obj.stringData;
    if (obj.data !== undefined) obj.data = kept;
    meta.annotations = { ...meta.annotations, [REDACTED_KEYS_ANNOTATION]: [...removed].sort().join(",") };
  }
  return obj;
}

/**
 * Lists one kind, page by page, filling in apiVersion/kind and sanitising each object. Each page's GET
 * is retried on its own (kube/http.ts); a list that needed retries says how many (`retries`, and
 * "(after N retries)" in the message of a failure). Never throws.
 */
export async function listKind(
  client: KubeClient,
  spec: KindSpec,
  scope: ListScope = {},
  opts: ListOptions = {},
): Promise<ListOutcome> {
  const apiVersion = spec.group === "" ? spec.version : `${spec.group}/${spec.version}`;
  const what = describeList(spec, scope);
  const path = listPath(spec, scope.namespace);
  const { labelSelector, fieldSelector } = selectorsOf(spec, scope);
  const items: K8sObject[] = [];
  let cont: string | undefined;
  let retries = 0;
  const failed = (message: string): ListOutcome => ({
    ok: false,
    reason: "error",
    message: message + afterRetries(retries),
  });
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ limit: String(LIST_PAGE_SIZE) });
      if (labelSelector) q.set("labelSelector", labelSelector);
      if (fieldSelector) q.set("fieldSelector", fieldSelector);
      if (cont) q.set("continue", cont);
      const page = await client.getJsonCounted(`${path}?${q}`, { urgent: opts.urgent === true });
      retries += page.retries;
      const parsed = ListBody.safeParse(page.json);
      if (!parsed.success) return failed(malformedList(what, parsed.error));
      const body = parsed.data;
      const objects = body.items.filter(isObject);
      if (objects.length !== body.items.length) {
        return failed(`listing ${what}: an item has no object metadata`);
      }
      for (const item of objects) {
        item.apiVersion ??= apiVersion;
        item.kind ??= spec.kind;
        items.push(sanitizeObject(item));
      }
      const next = body.metadata?.continue;
      if (next && next === cont) return failed(`listing ${what}: the server repeated continue token`);
      cont = next !== undefined && next.length > 0 ? next : undefined;
      if (!cont) return retries > 0 ? { ok: true, items, retries } : { ok: true, items };
    }
    return failed(`listing ${what}: more than ${MAX_PAGES} pages`);
  } catch (err) {
    // The failing page's own retries are in its error's message; earlier pages' are added here.
    const out = client.failure(err, `listing ${what}`);
    return retries > 0 && out.reason === "error"
      ? { ...out, message: out.message + afterRetries(retries) }
      : out;
  }
}
