/**
 * GATEWAY EXPOSURE layer (GW-01…GW-06): the per-peer gateway workload, how the gateway server is
 * exposed (Service), what it advertises (GatewayServer.status.endpoint), what the client dials, a UDP
 * probe of the endpoint, and the gateway's stability. Field paths follow Liqo's
 * `apis/networking/v1beta1/gatewayserver_types.go`, `gatewayclient_types.go`, `wggatewayserver_types.go` and
 * the gateway templates (`deployments/liqo/templates/liqo-wireguard-gateway-{server,client}-template.yaml`).
 */
import type { CheckDef } from "../types.ts";
import { GW_01 } from "./gw01.ts";
import { GW_02 } from "./gw02.ts";
import { GW_03 } from "./gw03.ts";
import { GW_04 } from "./gw04.ts";
import { GW_05 } from "./gw05.ts";
import { GW_06 } from "./gw06.ts";
import { GW_07 } from "./gw07.ts";

/** The GATEWAY EXPOSURE layer checks, in catalog order (which is ID order). */
export const GATEWAY_CHECKS: readonly CheckDef[] = [GW_01, GW_02, GW_03, GW_04, GW_05, GW_06, GW_07];
