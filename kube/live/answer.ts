/**
 * One request over a cluster's client and how its answer reads, shared by the writer (write.ts) and
 * the access questions (access.ts): a missing Deno permission, rejected credentials or an
 * unreachable server throw a {@link ToolError}; every other answer is an outcome — a refusal carries
 * the Kubernetes Status' reason and message.
 */
import { z } from "zod";
import { ToolError, toToolError } from "../../errors.ts";
import type { K8sObject, WriteOutcome } from "../source.ts";

export type { WriteOutcome } from "../source.ts";
import { type KubeClient, shortError } from "./client.ts";

/** A Kubernetes Status object (the body of a refused request). */
export const StatusSchema = z.object({
  kind: z.literal("Status").optional(),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
});

/** Any object: a kind, an apiVersion and a name. */
export const ObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({ name: z.string() }),
});

/** The reason phrase of an HTTP status, for answers whose body is not a Status. */
function reasonOf(status: number): string {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "AlreadyExists";
    case 410:
      return "Gone";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    default:
      return status >= 500 ? "InternalError" : "Unknown";
  }
}

/** A refusal: the Status' reason and message when the body is one, else the status and body excerpt. */
export function refusal(status: number, body: string): Extract<WriteOutcome, { ok: false }> {
  let parsed: z.infer<typeof StatusSchema> | null = null;
  try {
    const s = StatusSchema.safeParse(JSON.parse(body));
    parsed = s.success ? s.data : null;
  } catch {
    parsed = null;
  }
  const excerpt = body.trim().split("\n")[0].slice(0, 200);
  return {
    ok: false,
    status,
    reason: parsed?.reason || reasonOf(status),
    message: parsed?.message || (excerpt ? `HTTP ${status}: ${excerpt}` : `HTTP ${status}`),
  };
}

/**
 * Sends one request. Rethrows an abort, and turns a missing Deno permission, rejected credentials
 * or an unreachable server into a {@link ToolError}; everything else is an HTTP answer.
 */
export async function send(
  client: KubeClient,
  method: string,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; body: string }> {
  const { server, context } = client.endpoint;
  try {
    const res = await client.request(method, path, {
      body: body === undefined ? undefined : JSON.stringify(body),
      contentType: "application/json",
      signal,
    });
    if (res.status === 401) {
      throw new ToolError(
        `the API server at ${server} rejected the credentials of context ${context} (401) on ${method} ${path}`,
      );
    }
    return res;
  } catch (err) {
    if (signal?.aborted && err === signal.reason) throw err;
    if (err instanceof ToolError) throw err;
    const tool = toToolError(err, client.netPurpose, { server, context });
    if (tool) throw tool;
    throw new ToolError(`${method} ${path} on ${server} failed: ${shortError(err)}`, { cause: err });
  }
}

/** An answer as a {@link WriteOutcome}: 2xx with a JSON object, else the refusal. */
export function outcomeOf(res: { status: number; body: string }, server: string): WriteOutcome {
  if (res.status < 200 || res.status >= 300) return refusal(res.status, res.body);
  let json: unknown = null;
  try {
    json = JSON.parse(res.body);
  } catch {
    // not JSON: unreadable below
  }
  const parsed = ObjectSchema.safeParse(json);
  if (parsed.success) return { ok: true, status: res.status, object: parsed.data as K8sObject };
  // A DELETE may answer with a Status (`{"kind":"Status","status":"Success"}`) rather than the object.
  const status = StatusSchema.safeParse(json);
  if (status.success && status.data.kind === "Status") {
    return { ok: true, status: res.status, object: { kind: "Status", metadata: { name: "" } } };
  }
  return {
    ok: false,
    status: res.status,
    reason: "InvalidResponse",
    message: `unreadable answer from ${server}`,
  };
}
