/**
 * Test support for the property-based fuzz tests (tests/fuzz/): the fast-check run parameters (a
 * fixed seed in CI, `FUZZ_SEED` / `FUZZ_RUNS` to override) and an in-memory ClusterSource that serves
 * fixture objects by kind, the way the API server lists them.
 */
// deno-lint-ignore no-import-prefix -- test-only, locked in tests/deno.lock (tests/support/runtime_lock.ts)
import type { Parameters } from "npm:fast-check@4.11.0";
import { type KindId, KINDS } from "../../kube/kinds.ts";
import type { ClusterSource, K8sObject } from "../../kube/source.ts";
import { BASE_TIME } from "./fixtures.ts";
import { scopeMatcher } from "../../kube/selectors.ts";

/** The seed of every fuzz property: fixed, so CI runs are reproducible; `FUZZ_SEED=<int>` overrides. */
export const FUZZ_SEED: number = envInt("FUZZ_SEED") ?? 0x5eed_f15;

/** `FUZZ_RUNS=<n>` overrides the number of cases of every property (e.g. a long local soak). */
export function fuzzRuns(ciDefault: number): number {
  return envInt("FUZZ_RUNS") ?? ciDefault;
}

/** fast-check parameters: seeded, `numRuns` cases (a failure prints the seed, path and shrunk case). */
export function fuzzParams<T>(numRuns: number): Parameters<T> {
  return { seed: FUZZ_SEED, numRuns: fuzzRuns(numRuns) };
}

function envInt(name: string): number | null {
  const raw = Deno.env.get(name);
  if (raw === undefined || raw.trim() === "") return null;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name}=${raw}: expected an integer`);
  return n;
}

/** The kind id of a fixture object (by its `kind`), if FlyingFish reads that kind. */
export function kindIdOf(o: K8sObject): KindId | null {
  return (Object.keys(KINDS) as KindId[]).find((k) => KINDS[k].kind === o.kind) ?? null;
}

/** Groups objects into per-kind lists (every kind present, maybe empty); unread kinds are dropped. */
export function listsOf(objects: readonly K8sObject[]): Map<KindId, unknown[]> {
  const lists = new Map<KindId, unknown[]>((Object.keys(KINDS) as KindId[]).map((k) => [k, []]));
  for (const o of objects) {
    const id = kindIdOf(o);
    if (id) lists.get(id)!.push(o);
  }
  return lists;
}

/**
 * A ClusterSource answering every list from `lists` (a kind's list is served as is, whatever its
 * items look like: a mutated object stays in the list of the kind it was listed as), discovery
 * serving every Liqo kind, and no exec (the fuzz runs use scripted probes).
 */
export function memorySource(lists: ReadonlyMap<KindId, unknown[]>, context: string): ClusterSource {
  return {
    endpoint: { context, server: "https://127.0.0.1:6443" },
    now: () => new Date(BASE_TIME.getTime()),
    isSnapshot: false,
    list(spec, scope) {
      const id = (Object.keys(KINDS) as KindId[]).find((k) => KINDS[k] === spec);
      const items = structuredClone((id ? lists.get(id) : undefined) ?? []) as K8sObject[];
      return Promise.resolve({ ok: true, items: scope ? items.filter(scopeMatcher(scope)) : items });
    },
    discovery: (groups) =>
      Promise.resolve({
        ok: true,
        groups: groups.map((g) => ({
          ...g,
          resources: Object.values(KINDS).filter((k) => k.group === g.group && k.version === g.version)
            .map((k) => k.plural),
        })),
      }),
    exec: () => Promise.resolve({ ok: false, reason: "error", message: "no exec in the memory source" }),
    close: () => Promise.resolve(),
  };
}
