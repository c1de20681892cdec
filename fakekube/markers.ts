/**
 * Markers the probe command lines carry so the fake data plane recognises a batched script (one
 * exec running a series of UDP dials or a service sweep). The protocol between the product's
 * probe commands and this fake defines them; they are spelled here so the fake imports nothing of
 * the product, and tests/fakekube/markers_test.ts asserts they equal the product's
 * (active/commands.ts).
 */

/** Marker of a batched UDP dial series (`: ff-udp-series count=… first=… host=… nonce=…; …`). */
export const UDP_SERIES_MARKER = "ff-udp-series";

/** Marker of a batched service sweep (`: ff-svc-sweep count=… host=…; …`). */
export const SERVICE_SWEEP_MARKER = "ff-svc-sweep";

/** Marker of a PROBE-MATRIX row (`: ff-matrix-row cells=<k>:<ip>:<t|u|tu>,… tcp=… udp=…; …`). */
export const MATRIX_ROW_MARKER = "ff-matrix-row";

/** Marker of the preflight UDP echo (`: ff-pf-echo targets=<k>@<addr>@<port>,… count=… nonce=…; …`). */
export const PREFLIGHT_ECHO_MARKER = "ff-pf-echo";
