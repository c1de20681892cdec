/**
 * Typed views of every kind FlyingFish reads, and {@link Objects}: the typed face of an
 * {@link Inventory}. Each kind is parsed lazily, once, item by item; an item that does not fit its
 * schema is left out and recorded (see {@link Objects.malformed}) instead of failing the run.
 */
import type { z } from "zod";
import type { KindId } from "../../kube/kinds.ts";
import type { Inventory, KindState } from "../../kube/inventory.ts";
import type { DiscoveryOutcome, K8sObject } from "../../kube/source.ts";
import {
  type ConfigMap,
  ConfigMapView,
  type DaemonSet,
  DaemonSetView,
  type Deployment,
  DeploymentView,
  type EndpointSlice,
  EndpointSliceView,
  type Event,
  EventView,
  type Namespace,
  NamespaceView,
  type NetworkPolicy,
  NetworkPolicyView,
  type Node,
  NodeView,
  type Pod,
  PodView,
  type Secret,
  SecretView,
  type Service,
  ServiceView,
} from "./core.ts";
import {
  type Configuration,
  ConfigurationView,
  type Connection,
  ConnectionView,
  type FirewallConfiguration,
  FirewallConfigurationView,
  type GatewayClient,
  GatewayClientView,
  type GatewayServer,
  GatewayServerView,
  type GatewayTemplate,
  GatewayTemplateView,
  type GeneveTunnel,
  GeneveTunnelView,
  type InternalFabric,
  InternalFabricView,
  type InternalNode,
  InternalNodeView,
  type PublicKey,
  PublicKeyView,
  type RouteConfiguration,
  RouteConfigurationView,
  type WgGatewayClient,
  WgGatewayClientView,
  type WgGatewayServer,
  WgGatewayServerView,
} from "./networking.ts";
import { type IP, IPView, type Network, NetworkView } from "./ipam.ts";
import {
  type ForeignCluster,
  ForeignClusterView,
  type Identity,
  IdentityView,
  type ResourceSlice,
  ResourceSliceView,
  type Tenant,
  TenantView,
} from "./peering.ts";
import {
  type NamespaceMap,
  NamespaceMapView,
  type NamespaceOffloading,
  NamespaceOffloadingView,
  type ShadowEndpointSlice,
  ShadowEndpointSliceView,
  type VirtualNode,
  VirtualNodeView,
} from "./offloading.ts";
import type { KubeObject } from "./meta.ts";

/**
 * The view type of every kind in kube/kinds.ts, by kind id (each one a {@link KubeObject}: `metadata`
 * is always there).
 */
export interface ViewTypes extends Record<KindId, KubeObject> {
  nodes: Node;
  namespaces: Namespace;
  pods: Pod;
  services: Service;
  configmaps: ConfigMap;
  secrets: Secret;
  endpointslices: EndpointSlice;
  deployments: Deployment;
  daemonsets: DaemonSet;
  networkpolicies: NetworkPolicy;
  foreignclusters: ForeignCluster;
  configurations: Configuration;
  connections: Connection;
  gatewayservers: GatewayServer;
  gatewayclients: GatewayClient;
  publickeies: PublicKey;
  internalnodes: InternalNode;
  internalfabrics: InternalFabric;
  genevetunnels: GeneveTunnel;
  routeconfigurations: RouteConfiguration;
  firewallconfigurations: FirewallConfiguration;
  wggatewayservers: WgGatewayServer;
  wggatewayclients: WgGatewayClient;
  wggatewayservertemplates: GatewayTemplate;
  wggatewayclienttemplates: GatewayTemplate;
  networks: Network;
  ips: IP;
  identities: Identity;
  tenants: Tenant;
  resourceslices: ResourceSlice;
  namespaceoffloadings: NamespaceOffloading;
  namespacemaps: NamespaceMap;
  virtualnodes: VirtualNode;
  shadowendpointslices: ShadowEndpointSlice;
  events: Event;
}

/** The schema of every kind in kube/kinds.ts, by kind id. */
export const VIEWS: { readonly [K in KindId]: z.ZodType<ViewTypes[K]> } = {
  nodes: NodeView,
  namespaces: NamespaceView,
  pods: PodView,
  services: ServiceView,
  configmaps: ConfigMapView,
  secrets: SecretView,
  endpointslices: EndpointSliceView,
  deployments: DeploymentView,
  daemonsets: DaemonSetView,
  networkpolicies: NetworkPolicyView,
  foreignclusters: ForeignClusterView,
  configurations: ConfigurationView,
  connections: ConnectionView,
  gatewayservers: GatewayServerView,
  gatewayclients: GatewayClientView,
  publickeies: PublicKeyView,
  internalnodes: InternalNodeView,
  internalfabrics: InternalFabricView,
  genevetunnels: GeneveTunnelView,
  routeconfigurations: RouteConfigurationView,
  firewallconfigurations: FirewallConfigurationView,
  wggatewayservers: WgGatewayServerView,
  wggatewayclients: WgGatewayClientView,
  wggatewayservertemplates: GatewayTemplateView,
  wggatewayclienttemplates: GatewayTemplateView,
  networks: NetworkView,
  ips: IPView,
  identities: IdentityView,
  tenants: TenantView,
  resourceslices: ResourceSliceView,
  namespaceoffloadings: NamespaceOffloadingView,
  namespacemaps: NamespaceMapView,
  virtualnodes: VirtualNodeView,
  shadowendpointslices: ShadowEndpointSliceView,
  events: EventView,
};

/** The typed view of one kind (e.g. `ViewOf<"pods">` is a Pod). */
export type ViewOf<K extends KindId> = ViewTypes[K];

/** An object left out of its kind's view because it did not fit the schema. */
export interface Malformed {
  namespace?: string;
  name: string;
  /** The first schema issue, as "path: message". */
  issue: string;
}

interface Parsed {
  readonly items: readonly unknown[];
  readonly malformed: readonly Malformed[];
  /** The raw objects behind `malformed`, in the same order. */
  readonly leftOut: readonly unknown[];
}

/** Name and namespace of a raw object, as far as they can be read. */
function identify(raw: unknown): { namespace?: string; name: string } {
  const meta = raw && typeof raw === "object" ? (raw as { metadata?: unknown }).metadata : undefined;
  const m = meta && typeof meta === "object" ? meta as { name?: unknown; namespace?: unknown } : {};
  const name = typeof m.name === "string" ? m.name : "";
  return typeof m.namespace === "string" ? { namespace: m.namespace, name } : { name };
}

/** "path: message" of a zod issue. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "does not match the schema";
  const path = issue.path.length ? issue.path.map(String).join(".") : "(root)";
  return `${path}: ${issue.message}`;
}

/** A kind as {@link Objects.readable} answers: its well-formed objects, or why it could not be read. */
export type KindRead<K extends KindId> =
  | { readonly ok: true; readonly items: readonly ViewOf<K>[] }
  | { readonly ok: false; readonly reason: string };

/** Why a kind in state `s` could not be read ("forbidden: identities — …"), for evidence and summaries. */
export function unreadableReason(kind: KindId, s: KindState): string {
  if (s.state === "forbidden") return `forbidden: ${kind} — ${s.message}`;
  if (s.state === "error") return `cannot read ${kind} — ${s.message}`;
  if (s.state === "missing") return `${kind} not installed — ${s.message}`;
  if (s.state === "not-listed") return `${kind} not read (not declared in reads or optionalReads)`;
  return `${kind} readable`;
}

type ParseResult = { success: true; data: unknown } | { success: false; error: z.ZodError };

/** Parses of objects frozen all the way down, by schema then object (see {@link parseOnce}). */
const FROZEN_PARSES = new WeakMap<z.ZodType, WeakMap<object, ParseResult>>();

/** Whether `v` and everything it holds is frozen (it can never change). */
function deeplyFrozen(v: unknown): boolean {
  if (!v || typeof v !== "object") return true;
  if (!Object.isFrozen(v)) return false;
  for (const x of Object.values(v)) if (!deeplyFrozen(x)) return false;
  return true;
}

/** Freezes a parsed view all the way down (it is shared by every run that parses the same object). */
function freezeDeep<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) freezeDeep(x);
  }
  return v;
}

/**
 * `schema.safeParse(raw)`, reused when `raw` is frozen all the way down: a parse is a pure function
 * of an object that cannot change, so the answer is remembered (and frozen, so a run that wrote to
 * it would crash, not leak into the next). Live answers are never frozen and always parsed; answers
 * replayed to many runs (the fault matrices in tests) are, and are parsed once.
 */
function parseOnce(schema: z.ZodType, raw: unknown): ParseResult {
  if (!raw || typeof raw !== "object" || !Object.isFrozen(raw)) return schema.safeParse(raw);
  let bySchema = FROZEN_PARSES.get(schema);
  if (!bySchema) FROZEN_PARSES.set(schema, bySchema = new WeakMap());
  // Remembered only once found frozen all the way down, which it then stays: no second walk.
  const known = bySchema.get(raw);
  if (known) return known;
  if (!deeplyFrozen(raw)) return schema.safeParse(raw);
  const r = schema.safeParse(raw);
  const out: ParseResult = r.success ? { success: true, data: freezeDeep(r.data) } : r;
  bySchema.set(raw, out);
  return out;
}

/** The typed face of an {@link Inventory}: the same queries, returning parsed views. */
export class Objects {
  readonly #parsed = new Map<KindId, Parsed>();
  readonly #indexes = new Map<string, ReadonlyMap<string, readonly unknown[]>>();

  /** Wraps an inventory; nothing is parsed until a kind is asked for. */
  constructor(readonly raw: Inventory) {}

  #parse(kind: KindId, list: readonly unknown[]): Parsed {
    const known = this.#parsed.get(kind);
    if (known) return known;
    const schema: z.ZodType = VIEWS[kind];
    const items: unknown[] = [];
    const malformed: Malformed[] = [];
    const leftOut: unknown[] = [];
    for (const raw of list) {
      const r = parseOnce(schema, raw);
      if (r.success) items.push(r.data);
      else {
        malformed.push({ ...identify(raw), issue: describeIssue(r.error.issues[0]) });
        leftOut.push(raw);
      }
    }
    const parsed: Parsed = { items, malformed, leftOut };
    this.#parsed.set(kind, parsed);
    // Once the inventory is complete, hold each object once: the parsed view (a superset of the raw
    // object's fields), not the raw answer beside it.
    if (this.raw.settled) this.raw.compact(kind, [...items, ...leftOut] as K8sObject[]);
    return parsed;
  }

  /** All well-formed objects of a kind; throws KindUnavailableError like the inventory. */
  items<K extends KindId>(kind: K): readonly ViewOf<K>[] {
    return this.#parse(kind, this.raw.items(kind)).items as readonly ViewOf<K>[];
  }

  /**
   * Well-formed objects of a kind, or null when it could not be read. A check that turns this null
   * into "nothing there" (`?? []`) is `unknown` for it (checks/engine.ts); one that can judge
   * without the kind asks {@link readable} and says why it could not read it.
   */
  tryItems<K extends KindId>(kind: K): readonly ViewOf<K>[] | null {
    const list = this.raw.tryItems(kind);
    return list ? this.#parse(kind, list).items as readonly ViewOf<K>[] : null;
  }

  /**
   * The explicit question "could this kind be read?": its well-formed objects, or why not. Asking
   * it takes responsibility for the unreadable case (the engine does not turn the check `unknown`).
   */
  readable<K extends KindId>(kind: K): KindRead<K> {
    const items = this.tryItems(kind);
    return items ? { ok: true, items } : { ok: false, reason: unreadableReason(kind, this.raw.state(kind)) };
  }

  /** Objects of a kind in one namespace (indexed once per kind). */
  inNamespace<K extends KindId>(kind: K, namespace: string): ViewOf<K>[] {
    return [...(this.#index(kind, "ns", (o) => [o.metadata.namespace ?? ""]).get(namespace) ?? [])];
  }

  /** Objects of a kind carrying label `key` (with `value` when given), indexed once per kind and key. */
  withLabel<K extends KindId>(kind: K, key: string, value?: string): ViewOf<K>[] {
    const byValue = this.#index(kind, `label:${key}`, (o) => {
      const v = o.metadata.labels?.[key];
      return v === undefined ? [] : [v, "\0any"];
    });
    return [...(byValue.get(value ?? "\0any") ?? [])];
  }

  /** Pods (or any kind with `spec.nodeName`) scheduled on one node, indexed once per kind. */
  onNode<K extends KindId>(kind: K, node: string): ViewOf<K>[] {
    return [
      ...(this.#index(kind, "node", (o) => {
        const spec = (o as { spec?: { nodeName?: unknown } | null }).spec;
        return typeof spec?.nodeName === "string" ? [spec.nodeName] : [];
      }).get(node) ?? []),
    ];
  }

  /** One object by namespace and name, if present and well-formed. */
  get<K extends KindId>(kind: K, namespace: string | undefined, name: string): ViewOf<K> | undefined {
    return this.#index(kind, "name", (o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name}`])
      .get(`${namespace ?? ""}/${name}`)?.[0];
  }

  /**
   * An index of a kind's well-formed objects by the keys `keysOf` gives each (built on first use;
   * throws KindUnavailableError like {@link items}).
   */
  #index<K extends KindId>(
    kind: K,
    name: string,
    keysOf: (o: ViewOf<K>) => readonly string[],
  ): ReadonlyMap<string, readonly ViewOf<K>[]> {
    const items = this.items(kind);
    const id = `${kind} ${name}`;
    const known = this.#indexes.get(id);
    if (known) return known as Map<string, ViewOf<K>[]>;
    const index = new Map<string, ViewOf<K>[]>();
    for (const o of items) {
      for (const k of keysOf(o)) {
        const list = index.get(k);
        if (list) list.push(o);
        else index.set(k, [o]);
      }
    }
    this.#indexes.set(id, index);
    return index;
  }

  /**
   * Objects of a kind left out because they did not fit the schema (parses the kind if needed);
   * empty when the kind could not be read.
   */
  malformed(kind: KindId): readonly Malformed[] {
    const list = this.raw.tryItems(kind);
    return list ? this.#parse(kind, list).malformed : [];
  }

  /**
   * The raw objects of a kind left out of its view, each with why (see {@link malformed}): for
   * salvaging what can still be read of them. Empty when the kind could not be read.
   */
  leftOut(kind: KindId): readonly { raw: unknown; malformed: Malformed }[] {
    const list = this.raw.tryItems(kind);
    if (!list) return [];
    const parsed = this.#parse(kind, list);
    return parsed.leftOut.map((raw, i) => ({ raw, malformed: parsed.malformed[i] }));
  }

  /** Why a kind is unavailable, or its (raw) count. */
  state(kind: KindId): KindState {
    return this.raw.state(kind);
  }

  /** Kinds read and their states. */
  states(): Record<string, KindState> {
    return this.raw.states();
  }

  /** Discovery result, when it was requested. */
  get discovery(): DiscoveryOutcome | null {
    return this.raw.discovery;
  }
}
