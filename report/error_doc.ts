/**
 * The error document: what `-o json` (and `-o yaml`) print on stdout when the run itself fails
 * (exit 3: bad flags or kubeconfig, cluster unreachable, a missing Deno permission), so a program
 * reading stdout always gets a document of the published schema. The published schema
 * (`flyingfish schema`, schema/report.v1.schema.json) is "a report or an error document"; programs
 * tell them apart by the `error` key (or `exitCode` 3).
 */
import { z } from "zod";
import { jsonSchema, SCHEMA_VERSION } from "./model.ts";

/** Why the run could not produce a report. */
export interface ToolErrorInfo {
  /** The process exit code: always 3 (tool error). */
  code: 3;
  /** The one line also printed on stderr, without the `flyingfish:` prefix. */
  message: string;
  /** For a missing Deno permission: the flag that grants it (e.g. `--allow-net`), else null. */
  permission: string | null;
}

/** The document printed instead of a report when the run fails. */
export interface ErrorDocument {
  schemaVersion: typeof SCHEMA_VERSION;
  tool: { name: "flyingfish"; version: string };
  generatedAt: string;
  error: ToolErrorInfo;
  /** Always 3, like a report's `exitCode`. */
  exitCode: 3;
}

const errorDocumentObject = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal("flyingfish"), version: z.string() }),
  generatedAt: z.iso.datetime({ offset: true }).describe("RFC 3339"),
  error: z.object({
    code: z.literal(3),
    message: z.string(),
    permission: z.string().nullable().describe("the Deno flag that grants a missing permission"),
  }),
  exitCode: z.literal(3).describe("3: tool error"),
}).meta({
  title: "FlyingFish error document",
  description: "Printed on stdout with -o json/yaml when the run fails before producing a report (exit 3)",
});

/** Zod schema of {@link ErrorDocument}. */
export const ErrorDocumentSchema: z.ZodType<ErrorDocument> = errorDocumentObject;

// Compile-time guard: the zod schema and the interface stay in step.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _errorShapeMatches: Same<z.infer<typeof errorDocumentObject>, ErrorDocument> = true;
void _errorShapeMatches;

/** The error document for a tool error's one-line message (and the flag of a missing permission). */
export function errorDocument(
  message: string,
  toolVersion: string,
  permission: string | null = null,
  now: Date = new Date(),
): ErrorDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: "flyingfish", version: toolVersion },
    generatedAt: now.toISOString(),
    error: { code: 3, message, permission },
    exitCode: 3,
  };
}

/**
 * The published JSON Schema (draft 2020-12): a report ({@link jsonSchema}) or an error document.
 * This is what `flyingfish schema` prints and schema/report.v1.schema.json ships.
 */
export function publishedSchema(): Record<string, unknown> {
  // `$defs` stay at the root, where the `#/$defs/…` references of either branch point.
  const { $id, $schema, $defs, ...report } = jsonSchema();
  const { $schema: _, $defs: errorDefs, ...error } = z.toJSONSchema(ErrorDocumentSchema, {
    target: "draft-2020-12",
  });
  const defs = { ...(errorDefs ?? {}), ...(($defs ?? {}) as Record<string, unknown>) };
  return {
    $id,
    $schema,
    title: "FlyingFish report or error document",
    description: "What `flyingfish check -o json` prints: the report, or (exit 3) the error document",
    anyOf: [report, error],
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  };
}
