/** Splitting an API path below `/api/v1` or `/apis/<group>/<version>`, for the read and write routes. */

/** The parts of a resource path: `[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]`. */
export interface ResourcePath {
  ns: string | undefined;
  plural: string;
  name: string | undefined;
  sub: string | undefined;
}

/** The resource path of `rest` (the segments after the group version), or null when it is not one. */
export function resourcePath(rest: readonly string[]): ResourcePath | null {
  if (rest[0] === "namespaces" && rest.length >= 3) {
    if (rest.length > 5) return null;
    const [plural, name, sub] = rest.slice(2);
    return { ns: rest[1], plural, name, sub };
  }
  if (rest.length === 0 || rest.length > 3) return null;
  const [plural, name, sub] = rest;
  return { ns: undefined, plural, name, sub };
}
