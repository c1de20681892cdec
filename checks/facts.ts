/**
 * Facts one check hands on to another beside its result: a check that declares another as an input
 * (`CheckDef.inputs`) reads them through `CheckContext.input`. Typed here, at the checks' floor, so
 * that the producer (an active probe's judge) and the consumer (a passive check) share one contract
 * without either importing the other.
 */

/** What the reachability matrix says of one node's Geneve path to its gateway. */
export type NodePathVerdict =
  /** Its row is red while its own cluster's control grid is not: its Geneve path to the gateway. */
  | {
    kind: "broken";
    node: string;
    /** Cells of its row (all failed). */
    cells: number;
    /** Title of the grid the row is in. */
    grid: string;
    /** Title of the grid back that is red for it too (red both ways), or null. */
    bothWays: string | null;
    /** Whether a control grid measured the node (green there). */
    control: boolean;
  }
  /** Its row is red, and so is it in its own cluster's control grid: its CNI, not the Geneve path. */
  | { kind: "cni"; node: string; grid: string }
  /** At least one cell answered: its Geneve path carried traffic (flakyOnly: only on the retry). */
  | { kind: "reached"; node: string; flakyOnly: boolean }
  /** No cell answered and the row is not all red (not measured, or red mixed with unmeasured). */
  | { kind: "unconfirmed"; node: string; grid: string; anyRed: boolean };

/** The matrix read for one end of the probed peering: does each node's Geneve path carry traffic? */
export interface GenevePathReading {
  /** The cluster's report name (a result's `cluster`). */
  cluster: string;
  /** The other end's cluster ID as this cluster's results name it (a per-peer result's `peer`). */
  peer: string;
  /** The other end's report name (the grids' `toCluster`). */
  peerName: string;
  /** Every outgoing cross grid of the cluster is red: the tunnel or a gateway, not one node. */
  allRed: boolean;
  /** Outgoing cross grids measured (0: the matrix says nothing of this end). */
  grids: number;
  /** One verdict per probed node of the cluster. */
  nodes: NodePathVerdict[];
}

/** Facts a check may hand on, by kind. */
export interface CheckFacts {
  /** PROBE-MATRIX: each end's nodes and their Geneve paths (FAB-03's active half). */
  genevePaths?: readonly GenevePathReading[];
  /** PF-DIR / PF-MTU: the preflight path and the `liqoctl peer` flags it calls for. */
  preflightPath?: PreflightPathFacts;
  /** PF-ID: the two clusters are already peered with each other (the verdict points to `check`). */
  preflightPeered?: boolean;
}

/**
 * What preflight's UDP echo (PF-UDP, judged into PF-DIR) found of the path a tunnel would take, for
 * the verdict's `liqoctl peer` line: where the gateway server should live and how it is exposed.
 */
export interface PreflightPathFacts {
  /** Where the gateway server should live; null: no direction carried the echo. */
  serverSide: "consumer" | "provider" | null;
  /** The Service type the working direction used. */
  serviceType: "LoadBalancer" | "NodePort" | null;
  /** The port the client reached (the Service port, or the NodePort). */
  port: number | null;
  /** NAT settings the client side needs (`--gw-client-address/--gw-client-port`), when it needs them. */
  clientAddress?: string;
  clientPort?: number;
  /** The safe tunnel MTU found by PF-MTU (`--mtu`), when it is below Liqo's default. */
  mtu?: number;
}
