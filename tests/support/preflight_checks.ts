/**
 * Fixtures of the preflight checks' unit tests: the solo bases (rome-solo, milan-solo, milan-bare:
 * two clusters before peering), a consumer/provider context over them, and an access hub scripted
 * from a list of refusals.
 */
import type { K8sObject } from "../../kube/source.ts";
import type { CheckContext, PreflightIntent } from "../../checks/types.ts";
import type { AccessAnswers, AccessQuestions, ProbeHub } from "../../probes/hub.ts";
import { contextOf, inventoryOf, type Loose, parseObjects, scriptedProbes, viewOf } from "./fixtures.ts";

const cache = new Map<string, Promise<Loose[]>>();

/** Objects of testdata/base/<name>.yaml (rome-solo, milan-solo, milan-bare), deep-copied. */
export async function solo(name: "rome-solo" | "milan-solo" | "milan-bare"): Promise<Loose[]> {
  let p = cache.get(name);
  if (!p) {
    p = Deno.readTextFile(new URL(`../../testdata/base/${name}.yaml`, import.meta.url)).then(parseObjects);
    cache.set(name, p);
  }
  return structuredClone(await p);
}

/** A scripted access hub: `deny(cluster, verb, resource)` says no; dry runs refused per `refuse`. */
export function accessHub(opts: {
  deny?: (cluster: string, verb: string, resource: string) => boolean;
  refuse?: (cluster: string, o: K8sObject) => string | null;
  unavailable?: string;
  seen?: { cluster: string; q: AccessQuestions }[];
} = {}): ProbeHub {
  return {
    ...scriptedProbes(),
    access(cluster: string, q: AccessQuestions): Promise<AccessAnswers> {
      opts.seen?.push({ cluster, q });
      if (opts.unavailable) return Promise.resolve({ ok: false, unavailable: opts.unavailable });
      return Promise.resolve({
        ok: true,
        verdicts: q.reviews.map((a) => {
          const no = opts.deny?.(cluster, a.verb, a.group ? `${a.resource}.${a.group}` : a.resource) ?? false;
          return { ...a, allowed: !no, reason: no ? "no RBAC rule" : "" };
        }),
        dryRuns: q.dryRuns.map((object) => {
          const why = opts.refuse?.(cluster, object) ?? null;
          return why === null
            ? { object, admitted: true as const }
            : { object, admitted: false as const, status: 403, reason: "Forbidden", message: why };
        }),
      });
    },
  };
}

/** The context a dual preflight check gets: consumer as the local view, provider as the remote one. */
export function pairContext(
  consumer: K8sObject[],
  provider: K8sObject[],
  opts: {
    probes?: ProbeHub;
    preflight?: Partial<PreflightIntent>;
    serverVersion?: [string | null, string | null];
    now?: Date;
    providerErrors?: Parameters<typeof inventoryOf>[1];
  } = {},
): CheckContext {
  const at = opts.now ?? new Date("2026-11-30T02:30:00Z");
  const c = {
    ...viewOf(inventoryOf(consumer), at, "rome"),
    serverVersion: opts.serverVersion?.[0] ?? "v1.34.2",
  };
  const p = {
    ...viewOf(inventoryOf(provider, opts.providerErrors), at, "milan"),
    server: "https://127.0.0.1:7443",
    serverVersion: opts.serverVersion?.[1] ?? "v1.34.2",
  };
  return contextOf(c, {
    remote: p,
    probes: opts.probes,
    options: {
      preflight: { serverSide: null, serviceType: null, port: null, mtu: null, ...opts.preflight },
    },
  });
}
