/**
 * Test support for the TUNNEL check tests: scripted `wg show` states of both gateways (rome's and
 * milan's keys), and running a check by ID over fixture objects. Lives in tests/ so that nothing in the product imports test code.
 */
import { fixText } from "../../report/remediation.ts";
import type { CheckDef, Outcome } from "../../checks/types.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { ProbeHub, WgEvidence } from "../../probes/hub.ts";
import {
  BASE_TIME,
  baseObjects,
  contextOf,
  inventoryOf,
  peersOf,
  scriptedProbes,
  viewOf,
} from "./fixtures.ts";
import { TUNNEL_CHECKS } from "../../checks/tunnel/mod.ts";

export { TUNNEL_CHECKS };

export const ROME_NS = "liqo-tenant-milan-8d1f03";
export const MILAN_NS = "liqo-tenant-rome-4b2a9e";
export const ROME_POD = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";
export const MILAN_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";
/** rome's gateway key (rome Secret gw-milan-8d1f03, milan's PublicKey CR). */
const ROME_KEY = "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=";
/** milan's gateway key (milan Secret gw-rome-4b2a9e, rome's PublicKey CR). */
const MILAN_KEY = "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=";
export const NEW_MILAN_KEY = "Q2hhbmdlZE1pbGFuS2V5MDAwMDAwMDAwMDAwMDAwMDA=";

export interface WgOpts {
  own?: string;
  peer?: string;
  handshakeAgo?: number | null;
  rx?: [number, number];
  tx?: [number, number];
  mtu?: number;
  second?: boolean;
  /** The pod's eth0 MTU (default 1500); null: unreadable. */
  eth0?: number | null;
  /** The peer endpoint WireGuard dials (default 203.0.113.50:51840). */
  endpoint?: string;
}

function wgState(ns: string, pod: string, o: WgOpts): WgEvidence {
  const t0 = BASE_TIME.getTime();
  const hs = o.handshakeAgo === null ? 0 : Math.floor(t0 / 1000) - (o.handshakeAgo ?? 20);
  const sample = (i: 0 | 1) => ({
    takenAt: t0 + i * 3000,
    interfaces: [{
      name: "liqo-tunnel",
      publicKey: o.own ?? "",
      listenPort: 51840,
      peers: [{
        publicKey: o.peer ?? "",
        endpoint: o.endpoint ?? "203.0.113.50:51840",
        allowedIps: ["0.0.0.0/0"],
        latestHandshake: hs,
        rxBytes: (o.rx ?? [1000, 1360])[i],
        txBytes: (o.tx ?? [2000, 2360])[i],
        persistentKeepalive: null,
      }],
    }],
  });
  return {
    ok: true,
    namespace: ns,
    pod,
    via: "api",
    first: sample(0),
    second: o.second === false ? null : sample(1),
    mtu: { "liqo-tunnel": o.mtu ?? 1340 },
    underlay: o.eth0 === null
      ? { iface: "eth0", mtu: null, note: "MTU of eth0 unreadable (exit 1)" }
      : { iface: "eth0", mtu: o.eth0 ?? 1500 },
    notes: [],
  };
}

export function probes(rome: WgOpts = {}, milan: WgOpts = {}): ProbeHub {
  return scriptedProbes({
    wireguard: (_c, ns, pod) =>
      pod === ROME_POD
        ? wgState(ns, pod, { own: ROME_KEY, peer: MILAN_KEY, ...rome })
        : pod === MILAN_POD
        ? wgState(ns, pod, { own: MILAN_KEY, peer: ROME_KEY, ...milan })
        : { ok: false, namespace: ns, pod, reason: "missing", message: "no such pod" },
  });
}

function check(id: string): CheckDef {
  const c = TUNNEL_CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id}`);
  return c;
}

export async function run(
  id: string,
  objects: K8sObject[],
  opts: { remote?: K8sObject[]; probes?: ProbeHub; latencyThresholdMs?: number } = {},
): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects), BASE_TIME);
  const remoteView = opts.remote ? viewOf(inventoryOf(opts.remote), BASE_TIME) : null;
  const ctx = contextOf(view, {
    peer: peersOf(view)[0],
    remote: remoteView,
    remotePeer: remoteView ? peersOf(remoteView)[0] : null,
    probes: opts.probes ?? probes(),
    options: opts.latencyThresholdMs ? { latencyThresholdMs: opts.latencyThresholdMs } : {},
  });
  return await check(id).run(ctx);
}

export const rome = () => baseObjects("rome");
export const milan = () => baseObjects("milan");

export function text(o: Outcome): string {
  return [o.summary, ...(o.evidence ?? []), fixText(o.remediation)].join("\n");
}
