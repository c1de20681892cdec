/**
 * TUNNEL layer (TUN-01…TUN-07): the WireGuard tunnel between the two gateways — the Connection
 * written by the gateway's pinger, live `wg show` state (handshake, counters, keys), latency and MTU.
 * Field paths follow Liqo's `apis/networking/v1beta1/publickey_types.go`, `connection_types.go`, and the
 * gateway's `pkg/gateway/tunnel/`, `pkg/gateway/connection/`.
 */
import type { CheckDef } from "../types.ts";
import { TUN_01 } from "./tun01.ts";
import { TUN_02 } from "./tun02.ts";
import { TUN_03 } from "./tun03.ts";
import { TUN_04 } from "./tun04.ts";
import { TUN_05 } from "./tun05.ts";
import { TUN_06 } from "./tun06.ts";
import { TUN_07 } from "./tun07.ts";

/**
 * The TUNNEL layer checks, in catalog order. TUN-04 comes first: a missing, mislabelled or stale
 * PublicKey explains a tunnel that never comes up (no Connection, a Connection stuck Connecting, no
 * handshake), so TUN-01 and TUN-02 need it and the diagnosis names the key rather than its symptoms.
 * The rest follow ID order: Connection (TUN-01), handshake (TUN-02), traffic (TUN-03, needs TUN-02),
 * latency (TUN-05, needs TUN-01), MTU (TUN-06), the MTU against the underlay (TUN-07).
 */
export const TUNNEL_CHECKS: readonly CheckDef[] = [TUN_04, TUN_01, TUN_02, TUN_03, TUN_05, TUN_06, TUN_07];
