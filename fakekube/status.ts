/**
 * The API server's error answers, shaped as a real one writes them: `Status` objects (reason, code,
 * details) and the RBAC refusal message, shared by the read routes (server.ts) and the write
 * routes (writes.ts).
 */

/** A `Status` object of kind Failure. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  };
  if (details) body.details = details;
  body.code = code;
  return body;
}

/** A JSON response. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** A `Status` failure response. */
export function statusResponse(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Response {
  return json(statusBody(code, reason, message, details), code);
}

/** 404 for a path that names no resource the server knows. */
export const notFoundResource = (): Response =>
  statusResponse(404, "NotFound", "the server could not find the requested resource", {});

/**
 * RBAC's 403, as the API server words it: `configurations.networking.liqo.io "x" is forbidden: User
 * "u" cannot get resource "configurations" in API group "networking.liqo.io" in the namespace "ns"`
 * (`plural` may name a subresource, `pods/exec`: the subject is then the pod).
 */
export function forbiddenResponse(
  user: string,
  verb: string,
  r: { plural: string; group: string },
  ns?: string,
  name?: string,
): Response {
  const base = r.plural.split("/")[0];
  const qualified = r.group === "" ? base : `${base}.${r.group}`;
  const subject = name !== undefined ? `${qualified} "${name}"` : qualified;
  const scope = ns !== undefined ? `in the namespace "${ns}"` : "at the cluster scope";
  const details: Record<string, unknown> = { kind: base };
  if (name !== undefined) details.name = name;
  if (r.group !== "") details.group = r.group;
  return statusResponse(
    403,
    "Forbidden",
    `${subject} is forbidden: User "${user}" cannot ${verb} resource "${r.plural}" in API group "${r.group}" ${scope}`,
    details,
  );
}
