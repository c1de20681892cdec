/**
 * What the routes of one fake cluster share: its configuration, resource table, permissions, watch
 * hub and write context, and the bits of server state that change while it runs (the list
 * resourceVersion, the port, exec faults picked for upgrade requests, sockets a fault left hanging).
 * server.ts builds one per cluster and hands it to each route module.
 */
import type { ExecFault } from "../faults.ts";
import type { LifecycleController } from "../lifecycle.ts";
import type { PermissionTable } from "../admission.ts";
import type { Resource } from "../resources.ts";
import { forbiddenResponse } from "../status.ts";
import type { FakeClusterConfig } from "../config.ts";
import type { WatchHub } from "../watch.ts";
import type { WriteContext } from "../writes.ts";

/** The user name the fake server reports in 403 messages. */
export const FAKE_USER = "flyingfish";

/** One running fake cluster's state, as its routes see it. */
export interface ServerState {
  readonly cfg: FakeClusterConfig;
  /** "group/version/plural" → served resource; replaced in place by `replaceObjects`. */
  readonly resources: Map<string, Resource>;
  readonly permissions: PermissionTable;
  readonly watchHub: WatchHub;
  readonly writes: WriteContext<LifecycleController>;
  /** The resourceVersion lists report (moves with every write and replace). */
  listRv: string;
  /** The port clients connect to (the TLS front's with TLS); set once listening. */
  port: number;
  /** Aborted on close: ends held-back (delayed) answers and open watches. */
  readonly closing: AbortController;
  /** Exec faults of upgrade requests, found by the fault route and applied by the exec route. */
  readonly execFaults: WeakMap<Request, ExecFault>;
  /** Exec sockets left hanging by a fault, closed on close. */
  readonly hanging: Set<WebSocket>;
  /** Seconds the WireGuard counters have advanced (wall clock or virtual, see FakeClusterConfig). */
  execElapsedSeconds(): number;
}

/** A 403 as the kube-apiserver words it for the fake's user. */
export function forbidden(
  verb: string,
  r: { plural: string; group: string },
  ns?: string,
  name?: string,
): Response {
  return forbiddenResponse(FAKE_USER, verb, r, ns, name);
}
