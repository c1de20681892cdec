/**
 * API discovery of the group/versions FlyingFish cares about: which resources each one serves (an
 * unserved group/version is an empty list, not an error).
 */
import { z } from "zod";
import { httpStatusOf } from "../../errors.ts";
import type { DiscoveryOutcome, GroupVersionResources } from "../source.ts";
import type { KubeClient } from "./client.ts";

/** An APIResourceList as it comes off the wire: only the top-level resource names matter. */
const ResourceList = z.object({
  resources: z.array(z.unknown()).catch([]).transform((rs) =>
    rs.flatMap((r) => {
      const p = z.object({ name: z.string() }).safeParse(r);
      return p.success && !p.data.name.includes("/") ? [p.data.name] : [];
    })
  ),
}).catch({ resources: [] });

/** Reads what each group/version serves, in parallel. Never throws. */
export async function readDiscovery(
  client: KubeClient,
  groups: readonly { group: string; version: string }[],
): Promise<DiscoveryOutcome> {
  try {
    const out = await Promise.all(groups.map(async ({ group, version }): Promise<GroupVersionResources> => {
      const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
      try {
        const { resources } = ResourceList.parse(await client.getJson(path));
        return { group, version, resources };
      } catch (err) {
        if (httpStatusOf(err) === 404) return { group, version, resources: [] };
        throw err;
      }
    }));
    return { ok: true, groups: out };
  } catch (err) {
    return client.failure(err, "reading API discovery");
  }
}
