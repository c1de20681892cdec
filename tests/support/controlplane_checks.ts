/**
 * Test support for the CONTROL PLANE check tests: run a check over fixture objects, scenario
 * overlays, and ForeignCluster condition lookup. Holds no test case.
 */
import { fixText } from "../../report/remediation.ts";
import type { CheckDef, Outcome } from "../../checks/types.ts";
import type { K8sObject } from "../../kube/source.ts";
import type { TlsDialResult } from "../../probes/hub.ts";
import {
  baseObjects,
  contextOf,
  find,
  inventoryOf,
  parseObjects,
  peersOf,
  scriptedProbes,
  viewOf,
} from "./fixtures.ts";

/** Runs the check `id` (one of the given definitions) for the first peer of the objects. */
export type Run = (
  id: string,
  objects: K8sObject[],
  opts?: { remote?: K8sObject[]; tls?: TlsDialResult; probes?: boolean },
) => Promise<Outcome>;

/** A `run` over the given check definitions. */
export function runner(defs: readonly CheckDef[]): Run {
  const check = (id: string): CheckDef => defs.find((c) => c.id === id)!;
  return async (id, objects, opts = {}) => {
    const view = viewOf(inventoryOf(objects));
    const remote = opts.remote ? viewOf(inventoryOf(opts.remote)) : null;
    const peer = peersOf(view)[0];
    const remotePeer = remote ? peersOf(remote)[0] ?? null : null;
    const probes = scriptedProbes(opts.tls ? { tls: () => opts.tls! } : {});
    return await check(id).run(
      contextOf(view, { peer, remote, remotePeer, probes, options: { networkProbes: opts.probes ?? false } }),
    );
  };
}

export const text = (o: Outcome): string =>
  [o.summary, ...(o.evidence ?? []), fixText(o.remediation)].join("\n");

async function scenarioObjects(name: string, cluster: string): Promise<K8sObject[]> {
  const url = new URL(`../../testdata/scenarios/${name}/${cluster}.objects.yaml`, import.meta.url);
  return parseObjects(await Deno.readTextFile(url));
}

/** Base objects with scenario overlay objects replacing same kind/namespace/name. */
export async function overlay(base: "rome" | "milan", scenario: string): Promise<K8sObject[]> {
  const objs = await baseObjects(base);
  for (const o of await scenarioObjects(scenario, base)) {
    const i = objs.findIndex((x) =>
      x.kind === o.kind && x.metadata.name === o.metadata.name &&
      x.metadata.namespace === o.metadata.namespace
    );
    if (i >= 0) objs[i] = o;
    else objs.push(o);
  }
  return objs;
}

/** A ForeignCluster condition (module condition, or top-level when `module` is null), to edit in place. */
export function fcCondition(
  objs: K8sObject[],
  fcName: string,
  module: string | null,
  type: string,
): Record<string, unknown> {
  const fc = find(objs, "ForeignCluster", fcName);
  const list: Record<string, unknown>[] = module
    ? fc.status.modules[module].conditions
    : fc.status.conditions;
  return list.find((c) => c.type === type)!;
}
