/**
 * The configuration of one fake cluster: its own module, so that the routes can name it without
 * importing the server that imports them.
 */
import type { WireguardState } from "./exec.ts";
import type { K8sObject } from "./object.ts";
import type { FaultRule } from "./faults.ts";
import type { NetworkHost } from "./netmodel.ts";
import type { LifecycleInput } from "./lifecycle.ts";
import type { LiqoReflection } from "./reflection.ts";

/** What one fake cluster serves. */
export interface FakeClusterConfig {
  /** Cluster, context and user name in the kubeconfig. */
  name: string;
  /** Objects with apiVersion/kind. */
  objects: K8sObject[];
  /** "namespace/pod" -> WireGuard state. */
  wireguard: WireguardState;
  /** Resource plurals (or "plural.group"), "pods/exec" or "pods/log", answered 403. */
  forbid?: string[];
  /** Added to every response. */
  latencyMs?: number;
  /** The `/version` gitVersion (default routes/discovery.ts FAKE_GIT_VERSION, v1.31.4), e.g. "v1.34.2". */
  serverVersion?: string;
  /** Default true: HTTPS with a CA generated at start-up. */
  tls?: boolean;
  /** Pod logs by "namespace/pod/container". */
  logs?: Record<string, string>;
  /**
   * API groups whose CRDs are not installed (e.g. "ipam.liqo.io"): absent from discovery, 404 on
   * their paths like any unknown resource, and their objects are not served.
   */
  missingGroups?: string[];
  /**
   * How the WireGuard transfer counters advance (see exec.ts `counters`): by default with the wall
   * clock (seconds since the server started). With a number, a virtual clock instead: it moves by
   * that many seconds on every exec call, and not otherwise. Two `wg show` samples any distance
   * apart then always show movement for moving peers (at least rate × step bytes) and none for
   * stalled ones, so tests can sample 100 ms apart without depending on timing.
   */
  execClockStepSeconds?: number;
  /** Injected faults (tests only, see faults.ts); also settable later with {@link FakeCluster.setFaults}. */
  faults?: FaultRule[];
  /** How written objects live on: permission table, Pod Security default, delays… (see lifecycle.ts). */
  lifecycle?: LifecycleInput;
  /**
   * The scenario's data plane (netmodel.ts), shared by both clusters: exec asks it first (probe
   * commands); null falls through to the WireGuard/iproute2 emulation of exec.ts.
   */
  network?: NetworkHost;
  /**
   * Liqo's reflection between the clusters of one scenario (shared like `network`): offloaded
   * namespaces, pods, Services and EndpointSlices appear in the served provider (reflection.ts).
   */
  reflection?: LiqoReflection;
}
