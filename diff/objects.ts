/**
 * The objects behind a diff: each cluster's captured objects on both sides, matched by identity
 * (liqo_keys.ts), normalised (normalise.ts) and compared field by field; plus the readings that move
 * by themselves — WireGuard handshakes and counters, gateway pod restarts and recreations,
 * Connection latency — reported apart and never counted as changes. Pure.
 */
import { KIND_IDS, type KindId, KINDS } from "../kube/kinds.ts";
import type { K8sObject } from "../kube/source.ts";
import type { DiffField, DiffObjectChange, DiffReading } from "../report/diff_schema.ts";
import { parseWgDump } from "../probes/wireguard_dump.ts";
import { fingerprint, normalise } from "./normalise.ts";
import { changeSummary, fieldLabel, identityOf, isGatewayPod, layerOf, NOT_COMPARED } from "./liqo_keys.ts";
import type { ClusterCapture } from "./capture.ts";

/** What comparing one cluster's two captures found. */
export interface ClusterComparison {
  changes: DiffObjectChange[];
  readings: DiffReading[];
  notes: string[];
}

function byIdentity(kind: KindId, items: readonly K8sObject[]): Map<string, K8sObject> {
  const out = new Map<string, K8sObject>();
  const seen = new Map<string, number>();
  const sorted = [...items].sort((a, b) =>
    a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0
  );
  for (const o of sorted) {
    // Replicas of one controller: matched in name order (`#2`, `#3`, … after the first).
    const base = identityOf(kind, o);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.set(n === 1 ? base : `${base}#${n}`, o);
  }
  return out;
}

const displayName = (o: K8sObject): string =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;

/**
 * Normalised forms, kept while their object lives: watch and serve compare every failing round with
 * the same healthy round, whose objects are normalised once.
 */
const memo = new WeakMap<K8sObject, Map<string, string>>();

function normalised(o: K8sObject, kind: string, dropPodIps: boolean): Map<string, string> {
  if (dropPodIps) return normalise(o, kind, { dropPodIps });
  let m = memo.get(o);
  if (!m) memo.set(o, m = normalise(o, kind));
  return m;
}

/** The fields that differ between two normalised objects, in path order. */
export function fieldChanges(
  kind: string,
  before: Map<string, string>,
  after: Map<string, string>,
): DiffField[] {
  // Most objects did not change: say so without sorting their paths.
  if (before.size === after.size && [...before].every(([k, v]) => after.get(k) === v)) return [];
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: DiffField[] = [];
  // Array elements (`x[key]`) present on one side only: their fields are not listed one by one.
  const whole = paths.filter((p) => p.endsWith("]") && before.has(p) !== after.has(p));
  for (const path of paths) {
    const b = before.get(path) ?? null, a = after.get(path) ?? null;
    if (b === a) continue;
    if (whole.some((w) => path !== w && (path.startsWith(`${w}.`) || path.startsWith(`${w}[`)))) continue;
    out.push({ path, label: fieldLabel(kind, path), before: b, after: a });
  }
  return out;
}

/** A pod's `status.containerStatuses` names and restart counts (entries of another shape skipped). */
const ContainerStatuses = (o: K8sObject): { name: string; restartCount: number }[] => {
  const st = (o.status as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(st)) return [];
  return st.flatMap((c) =>
    typeof c === "object" && c !== null && typeof (c as { name?: unknown }).name === "string" &&
      typeof (c as { restartCount?: unknown }).restartCount === "number"
      ? [{ name: (c as { name: string }).name, restartCount: (c as { restartCount: number }).restartCount }]
      : []
  );
};

/** Restarts of all of a pod's containers. */
function restarts(o: K8sObject): number {
  return ContainerStatuses(o).reduce((n, c) => n + c.restartCount, 0);
}

function latencyOf(o: K8sObject): string | null {
  const v = (o.status as { latency?: { value?: unknown } } | undefined)?.latency?.value;
  return typeof v === "string" ? v : null;
}

/** Compares one cluster's objects on the two sides. */
export function compareCluster(before: ClusterCapture, after: ClusterCapture): ClusterComparison {
  const changes: DiffObjectChange[] = [];
  const readings: DiffReading[] = [];
  const notes: string[] = [];
  const cluster = after.role;
  for (const kind of KIND_IDS) {
    if (NOT_COMPARED.has(kind)) continue;
    const b = before.lists[kind], a = after.lists[kind];
    if (b === undefined && a === undefined) continue;
    if (b === undefined || a === undefined) {
      const why = (b === undefined ? before.unreadable[kind] : after.unreadable[kind]) ?? "not read";
      notes.push(
        `${cluster}: ${KINDS[kind].kind} not compared: ${b === undefined ? "before" : "after"}: ${why}`,
      );
      continue;
    }
    for (const side of [before, after]) {
      if (side.truncated.includes(kind)) {
        notes.push(`${cluster}: ${KINDS[kind].kind}: only the first objects were kept (bound reached)`);
      }
    }
    const bm = byIdentity(kind, b), am = byIdentity(kind, a);
    const kindName = KINDS[kind].kind;
    for (const id of [...new Set([...bm.keys(), ...am.keys()])].sort()) {
      const bo = bm.get(id), ao = am.get(id);
      const o = (ao ?? bo)!;
      const base = {
        cluster,
        kind: kindName,
        namespace: o.metadata.namespace ?? null,
        name: o.metadata.name,
        layer: layerOf(kind, o),
        answerReads: false,
      };
      if (!bo || !ao) {
        const change = bo ? "removed" : "added";
        changes.push({
          ...base,
          change,
          summary: changeSummary(kindName, displayName(o), change, []),
          fields: [],
        });
        continue;
      }
      // A pod matched by its controller (liqo_keys.ts) but another instance: deleted and created again.
      const recreated = (bo.metadata.uid !== undefined && ao.metadata.uid !== undefined &&
        bo.metadata.uid !== ao.metadata.uid) ||
        bo.metadata.name !== ao.metadata.name ||
        bo.metadata.creationTimestamp !== ao.metadata.creationTimestamp;
      if (kind === "pods" && isGatewayPod(ao)) {
        const subject = `pod ${displayName(ao)}`;
        if (recreated) {
          readings.push({
            cluster,
            subject,
            what: "recreated",
            before: `${bo.metadata.name} (created ${bo.metadata.creationTimestamp ?? "?"})`,
            after: `${ao.metadata.name} (created ${ao.metadata.creationTimestamp ?? "?"})`,
          });
        }
        const rb = restarts(bo), ra = restarts(ao);
        if (rb !== ra) {
          readings.push({ cluster, subject, what: "restarts", before: String(rb), after: String(ra) });
        }
      }
      if (kind === "connections") {
        const lb = latencyOf(bo), la = latencyOf(ao);
        if (lb !== la) {
          readings.push({
            cluster,
            subject: `Connection ${displayName(ao)}`,
            what: "latency",
            before: lb,
            after: la,
          });
        }
      }
      const dropPodIps = kind === "pods" && recreated;
      const fields = fieldChanges(
        kindName,
        normalised(bo, kindName, dropPodIps),
        normalised(ao, kindName, dropPodIps),
      );
      if (fields.length === 0) continue;
      changes.push({
        ...base,
        change: "modified",
        summary: changeSummary(kindName, displayName(ao), "modified", fields),
        fields,
      });
    }
  }
  readings.push(...wireguardReadings(before, after));
  return { changes, readings, notes };
}

/** Handshake and counters of every WireGuard peer seen on both sides, as readings. */
function wireguardReadings(before: ClusterCapture, after: ClusterCapture): DiffReading[] {
  const out: DiffReading[] = [];
  const peersOf = (text: string) =>
    new Map(
      parseWgDump(text).interfaces.flatMap((i) =>
        i.peers.map((p) => [`${i.name} peer ${fingerprint(p.publicKey)}`, { iface: i, peer: p }] as const)
      ),
    );
  const gatewayOf = (key: string) => key.split("/")[1]?.replace(/-[a-z0-9]+-[a-z0-9]{5}$/, "") ?? key;
  const beforeByGw = new Map(Object.entries(before.wg).map(([k, v]) => [gatewayOf(k), { pod: k, text: v }]));
  for (const [pod, text] of Object.entries(after.wg)) {
    const prior = beforeByGw.get(gatewayOf(pod));
    if (!prior) continue;
    const bp = peersOf(prior.text), ap = peersOf(text);
    const subject = `pod ${pod}`;
    // The interface's own key: a gateway recreated with a new key pair (fingerprints only).
    const keys = (t: string) =>
      new Map(parseWgDump(t).interfaces.map((i) => [i.name, fingerprint(i.publicKey)]));
    const bk = keys(prior.text);
    for (const [iface, key] of keys(text)) {
      const old = bk.get(iface);
      if (old !== undefined && old !== key) {
        out.push({ cluster: after.role, subject, what: `${iface} public key`, before: old, after: key });
      }
    }
    for (const [key, { peer }] of ap) {
      const old = bp.get(key);
      if (!old) {
        out.push({ cluster: after.role, subject, what: `WireGuard ${key}`, before: null, after: "present" });
        continue;
      }
      const hs = (n: number | null) =>
        n === null ? "unreadable" : n === 0 ? "never" : new Date(n * 1000).toISOString();
      if (old.peer.latestHandshake !== peer.latestHandshake) {
        out.push({
          cluster: after.role,
          subject,
          what: `latest handshake (${key})`,
          before: hs(old.peer.latestHandshake),
          after: hs(peer.latestHandshake),
        });
      }
      const c = (v: number | bigint | null) => v === null ? "unreadable" : `${v} B`;
      if (
        String(old.peer.rxBytes) !== String(peer.rxBytes) || String(old.peer.txBytes) !== String(peer.txBytes)
      ) {
        out.push({
          cluster: after.role,
          subject,
          what: `transfer rx/tx (${key})`,
          before: `${c(old.peer.rxBytes)} / ${c(old.peer.txBytes)}`,
          after: `${c(peer.rxBytes)} / ${c(peer.txBytes)}`,
        });
      }
    }
    for (const key of bp.keys()) {
      if (!ap.has(key)) {
        out.push({ cluster: after.role, subject, what: `WireGuard ${key}`, before: "present", after: null });
      }
    }
  }
  return out;
}
