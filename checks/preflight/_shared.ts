/**
 * What preflight's checks share: the two clusters by role (the would-be consumer is the run's local
 * view, the would-be provider its remote one), whether Liqo is installed on a side, and the
 * intent the command line states (server side, service type, port, MTU).
 */
import type { CheckContext, ClusterView, Outcome, RunOptions } from "../types.ts";
import type { KindId } from "../../kube/kinds.ts";
import type { ViewOf } from "../../liqo/views/mod.ts";
import { controllerManager, liqoNamespaceOf } from "../../liqo/lookups.ts";

/** The role a cluster would have in the peering. */
export type Role = "consumer" | "provider";

/** One side of the would-be peering. */
export interface Side {
  role: Role;
  view: ClusterView;
  /** `local` for the consumer, `remote` for the provider (where a fix command runs). */
  on: "local" | "remote";
}

/** Liqo's defaults, as `liqoctl peer` applies them (`forge/gatewayserver.go`, `forge/common.go`). */
export const LIQO_DEFAULTS = {
  port: 51840,
  mtu: 1340,
  serviceType: "LoadBalancer",
  serverSide: "provider",
} as const;

/** What the command line says about the peering to come (RunOptions.preflight), defaults applied. */
export interface Intent {
  serverSide: Role;
  /** True when `--server-side` chose it (else Liqo's default, the provider). */
  serverSideGiven: boolean;
  serviceType: "LoadBalancer" | "NodePort";
  port: number;
  mtu: number;
  /** The NodePort forced (`--gw-server-service-nodeport`), null: Kubernetes allocates one. */
  nodePort: number | null;
}

/** The intent of the run, with Liqo's defaults where the command line said nothing. */
export function intentOf(options: RunOptions): Intent {
  const p = options.preflight;
  return {
    serverSide: p?.serverSide ?? LIQO_DEFAULTS.serverSide,
    serverSideGiven: p?.serverSide != null,
    serviceType: p?.serviceType ?? LIQO_DEFAULTS.serviceType,
    port: p?.port ?? LIQO_DEFAULTS.port,
    mtu: p?.mtu ?? LIQO_DEFAULTS.mtu,
    nodePort: p?.nodePort ?? null,
  };
}

/** The two sides, consumer first; null when the provider is not part of the run (the reason). */
export function sidesOf(ctx: CheckContext): Side[] | string {
  if (!ctx.remote) return "the would-be provider (--remote-kubeconfig) is not part of the run";
  return [
    { role: "consumer", view: ctx.cluster, on: "local" },
    { role: "provider", view: ctx.remote, on: "remote" },
  ];
}

/** The outcome of a check that cannot judge without the provider. */
export function noProvider(reason: string): Outcome {
  return { status: "unknown", summary: reason };
}

/**
 * Whether Liqo is installed on a cluster: its controller-manager Deployment (found by labels, as
 * liqoctl finds it). Null when the Deployments could not be read: nobody can tell.
 */
export function liqoInstalled(view: ClusterView): boolean | null {
  if (view.inv.tryItems("deployments") === null) return null;
  return controllerManager(view.inv) !== null;
}

/** The namespace Liqo runs in on a side, if installed. */
export function liqoNamespace(view: ClusterView): string | null {
  return view.liqoNamespace ?? liqoNamespaceOf(view.inv);
}

/** The words every check uses when Liqo is absent from a side. */
export function notInstalled(view: ClusterView): string {
  return `Liqo is not installed on ${view.name}`;
}

/**
 * Items of a Liqo kind on a side: the list, [] when its CRD is not installed (nothing of it can
 * exist), null when it could not be read (forbidden, error) — then nobody can tell.
 */
export function liqoItems<K extends KindId>(view: ClusterView, kind: K): readonly ViewOf<K>[] | null {
  const items = view.inv.tryItems(kind);
  if (items) return items;
  return view.inv.state(kind).state === "missing" ? [] : null;
}

/** Why a kind could not be read on a side, in the words of the inventory. */
export function unreadable(view: ClusterView, kind: KindId): string {
  const s = view.inv.state(kind);
  const why = "message" in s ? s.message : s.state;
  return `${kind} on ${view.name} could not be read (${why})`;
}

/** `name (role)`, how findings name a cluster. */
export function named(side: Side): string {
  return `${side.view.name} (${side.role})`;
}
