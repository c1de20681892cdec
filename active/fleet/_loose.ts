/**
 * Loose readers of unparsed API objects (a pod's status, an event): a record, an array or a
 * string, or an empty one when the field is absent or of another shape.
 */

/** An object read without a schema. */
export interface RecordLike {
  [k: string]: unknown;
}

/** `v` as a record, or {} when it is not one. */
export const rec = (v: unknown): RecordLike =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as RecordLike : {};
/** `v` as an array, or []. */
export const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];
/** `v` as a string, or "". */
export const str = (v: unknown): string => typeof v === "string" ? v : "";
