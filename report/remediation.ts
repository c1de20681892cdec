/**
 * Remediation as the report carries it: the steps a check returned (checks/remediation.ts), each
 * command printed as one shell line naming the cluster it runs against (report/targets.ts), so
 * JSON consumers get runnable commands and the Markdown/HTML reports put every command in a code
 * block with nothing to strip. Pure functions, no I/O; no text is parsed.
 */
import { z } from "zod";
import type { RemediationStep } from "../checks/remediation.ts";
import { commandLine, type Resolve } from "./targets.ts";

/**
 * One remediation step of the report: a command line to run (null for a remark only) and the
 * comment that annotates it (null when there is none).
 */
export interface ReportStep {
  /** A command line to run as is, flags naming its cluster included (null: a remark only). */
  command: string | null;
  /** What the command does or when to use it; alone, a remark (null: none). */
  comment: string | null;
}

/** Zod schema of {@link ReportStep}. */
export const ReportStepSchema: z.ZodType<ReportStep> = z.object({
  command: z.string().nullable().describe("A command line to run as is (flags naming its cluster included)"),
  comment: z.string().nullable().describe("What the command does or when to use it; alone: a remark"),
});

/**
 * Without a report to target from: a command on the observed cluster (or none) prints bare, one on
 * another cluster names it by a placeholder (`--kubeconfig <provider kubeconfig>`).
 */
const UNTARGETED: Resolve = (
  on,
) => (on === "local" || on === "none" ? { kind: "none" } : { kind: "absent", label: on });

/**
 * A check's steps as the report's: each command printed with `resolve` (which names the clusters;
 * left out, commands print bare — `invoked` says the user's kubeconfig files may be named).
 */
export function printSteps(
  steps: readonly RemediationStep[],
  resolve: Resolve = UNTARGETED,
  invoked = false,
): ReportStep[] {
  return steps.map((s) => ({
    command: s.command === null ? null : commandLine(s.command, resolve, invoked),
    comment: s.comment,
  }));
}

/** Widest line {@link remediationLines} puts a comment beside its command on. */
const BESIDE_MAX = 100;

/**
 * Where a command's comment goes: `above` when it introduces the command (it ends with `:`) or
 * would make the line too long, else `beside` it as a shell comment (`cmd   # comment`).
 */
export function commentPlacement(step: ReportStep): "above" | "beside" {
  if (step.command === null || step.comment === null) return "above";
  return step.comment.endsWith(":") || step.command.length + step.comment.length + 5 > BESIDE_MAX
    ? "above"
    : "beside";
}

/**
 * The steps as shell-ready lines (the text renderer's form): a remark is a `# …` line; a comment
 * that introduces its command (it ends with `:`) or would make the line too long goes on the line
 * above it, a short one beside it (`cmd   # comment`).
 */
export function remediationLines(steps: readonly ReportStep[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.command === null) {
      if (s.comment !== null) out.push(`# ${s.comment}`);
      continue;
    }
    if (s.comment === null) out.push(s.command);
    else if (commentPlacement(s) === "above") out.push(`# ${s.comment}`, s.command);
    else out.push(`${s.command}   # ${s.comment}`);
  }
  return out;
}

/** {@link remediationLines} joined with newlines, or null when there are no steps. */
export function remediationText(steps: readonly ReportStep[]): string | null {
  const lines = remediationLines(steps);
  return lines.length ? lines.join("\n") : null;
}

/** A check's fix as shell-ready text, commands bare ("" when there is nothing to do): for tests and logs. */
export function fixText(steps: readonly RemediationStep[] | undefined): string {
  return remediationText(printSteps(steps ?? [])) ?? "";
}

/** The commands of the steps, in order. */
export function commandsOf(steps: readonly ReportStep[]): string[] {
  return steps.flatMap((s) => (s.command === null ? [] : [s.command]));
}
