/**
 * A healthy hub: the consumer `rome` of the scale generator with three providers
 * (bench/scale/generate.ts), and each provider the base `milan` made to match its peering — the
 * WireGuard keys, gateway endpoint and API server address the generator gave that peer's clone —
 * so every edge is a paired, healthy peering judged from both ends. One cluster on three edges.
 * The objects are the base's CRD-valid ones with string values swapped (keys, addresses, names):
 * no field is added or removed. (No provider is shared by two consumers here: that needs a provider
 * side with several tenants, which no generator builds yet.)
 */
import {
  DEFAULT_REFERENCE_TIME,
  type FakeClusterConfig,
  loadBase,
  shiftCertificates,
  shiftTimestamps,
} from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { generateScaleCluster, replaceIp } from "../scale/generate.ts";

const BASE_PEER = "milan-8d1f03";

/** The hub and its providers, as fake-cluster configurations named by cluster ID. */
export async function healthyHub(
  now: Date = new Date(),
  peers = 3,
): Promise<FakeClusterConfig[]> {
  const delta = now.getTime() - Date.parse(DEFAULT_REFERENCE_TIME);
  const shift = async (objects: K8sObject[]) =>
    await shiftCertificates(shiftTimestamps(objects, delta), delta);
  const hub = generateScaleCluster(await loadBase("rome"), {
    peers,
    nodes: 5,
    pods: 40,
    namespaces: 4,
    broken: false,
  });
  const milan = await loadBase("milan");
  const out: FakeClusterConfig[] = [{
    name: "rome-4b2a9e",
    objects: await shift(hub.objects),
    wireguard: hub.wireguard,
  }];
  for (const swap of hub.peerSwaps) {
    const convert = (text: string) => {
      for (const [a, b] of swap.keys) text = text.replaceAll(a, b);
      for (const [a, b] of swap.ips) text = replaceIp(text, a, b);
      return text.replaceAll(BASE_PEER, swap.id);
    };
    out.push({
      name: swap.id,
      objects: await shift(JSON.parse(convert(JSON.stringify(milan.objects)))),
      wireguard: JSON.parse(convert(JSON.stringify(milan.wireguard))),
    });
  }
  return out;
}
