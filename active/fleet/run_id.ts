/**
 * Run ids: 8 characters of `[a-z0-9]` from the crypto random source — DNS-safe, so the run
 * namespace `flyingfish-probe-<id>` and the `flyingfish.io/run-id` label value are valid as they are.
 */
import { ToolError } from "../../errors.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Length of a run id. */
export const RUN_ID_LENGTH = 8;

/** What a run id looks like. */
export const RUN_ID_PATTERN: RegExp = /^[a-z0-9]{8}$/;

/**
 * A new run id. Bytes of 252 and more are drawn again (252 = 7 × 36), so every character is
 * equally likely: 36^8 ≈ 2.8e12 ids.
 */
export function newRunId(
  random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b),
): string {
  let id = "";
  while (id.length < RUN_ID_LENGTH) {
    for (const b of random(new Uint8Array(16))) {
      if (b < 252 && id.length < RUN_ID_LENGTH) id += ALPHABET[b % 36];
    }
  }
  return id;
}

/** True for a well-formed run id. */
export function isRunId(s: string): boolean {
  return RUN_ID_PATTERN.test(s);
}

/** The run id of `--run-id`, or a {@link ToolError} (exit 3) saying what one looks like. */
export function parseRunId(s: string): string {
  const id = s.trim();
  if (!isRunId(id)) {
    throw new ToolError(
      `invalid --run-id ${
        JSON.stringify(s)
      }: a run id is ${RUN_ID_LENGTH} characters a-z and 0-9 (the suffix of a flyingfish-probe-<id> namespace)`,
    );
  }
  return id;
}
