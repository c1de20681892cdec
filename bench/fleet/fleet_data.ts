/**
 * The benchmark's fleet (bench/fleet/run.ts): ten consumers, each the scale generator's rome with
 * four providers, and ten providers, each the base milan serving four consumers, every tenant
 * matching its consumer's view (bench/fleet/healthy.ts providerOf). Built per cluster, so that each
 * serving worker builds only its own.
 */
import {
  DEFAULT_REFERENCE_TIME,
  type FakeClusterConfig,
  loadBase,
  shiftCertificates,
  shiftTimestamps,
} from "../../fakekube/mod.ts";
import { generateScaleCluster, type ScaleCluster } from "../scale/generate.ts";
import type { K8sObject } from "../../kube/source.ts";
import { providerOf } from "./healthy.ts";

/** The fleet's shape. */
export interface FleetShape {
  pairs: number;
  peers: number;
}

export const cons = (i: number): string => `cons${String(i).padStart(2, "0")}-7d8e9f`;
export const prov = (shape: FleetShape, i: number): string =>
  `prov${String(i % shape.pairs).padStart(2, "0")}-5a1b2c`;

/** Every cluster name of the fleet: the consumers, then the providers. */
export function clusterNames(shape: FleetShape): string[] {
  return [
    ...Array.from({ length: shape.pairs }, (_, i) => cons(i)),
    ...Array.from({ length: shape.pairs }, (_, j) => prov(shape, j)),
  ];
}

function renamed<T>(v: T, map: Record<string, string>): T {
  let text = JSON.stringify(v);
  for (const [from, to] of Object.entries(map)) text = text.split(from).join(to);
  return JSON.parse(text) as T;
}

async function shifted(objects: K8sObject[], now: Date): Promise<K8sObject[]> {
  const delta = now.getTime() - Date.parse(DEFAULT_REFERENCE_TIME);
  return await shiftCertificates(shiftTimestamps(objects, delta), delta);
}

let consumer: Promise<ScaleCluster> | null = null;

/** One cluster of the fleet, its timestamps shifted to `now`. */
export async function clusterConfig(shape: FleetShape, name: string, now: Date): Promise<FakeClusterConfig> {
  consumer ??= loadBase("rome").then((rome) =>
    generateScaleCluster(rome, { peers: shape.peers, nodes: 5, pods: 200, namespaces: 10, broken: false })
  );
  const c = await consumer;
  const i = clusterNames(shape).indexOf(name);
  if (i < 0) throw new Error(`no cluster ${name} in the fleet`);
  if (i < shape.pairs) {
    const map: Record<string, string> = { "rome-4b2a9e": cons(i) };
    c.peers.forEach((p, k) => (map[p] = prov(shape, i + k)));
    return {
      name,
      objects: await shifted(renamed(c.objects, map), now),
      wireguard: renamed(c.wireguard, map),
    };
  }
  // Provider j serves every consumer that has it as its k-th peer, each tenant matching that view.
  const j = i - shape.pairs;
  const tenants = Array.from({ length: shape.peers }, (_, k) => ({
    consumer: cons((j - k + shape.pairs) % shape.pairs),
    swap: c.peerSwaps[k],
  }));
  const p = providerOf(await loadBase("milan"), prov(shape, j), tenants);
  return { name, objects: await shifted(p.objects, now), wireguard: p.wireguard };
}
