/**
 * The run defaults, spelled once: the CLI's flag defaults (as durations) and the library's (in
 * milliseconds) come from here. No imports, so the CLI's `--help` stays light.
 */

/** Flag defaults, as the CLI shows them. */
export const RUN_DEFAULTS = {
  /** `--sample-interval`: time between the two `wg show` samples (TUN-03). */
  sampleInterval: "3s",
  /** `--latency-threshold`: TUN-05 warns above this tunnel latency. */
  latencyThreshold: "200ms",
  /** `--request-timeout`: each API request and exec (kubectl's name; `0` = none). */
  requestTimeout: "30s",
  /** `--timeout`: the whole run (`0` = none). */
  runTimeout: "5m",
  /** `--probe-timeout`: bringing the probe fleet up, and each probe. */
  probeTimeout: "60s",
  /** `--cleanup-timeout`: the probe cleanup's own budget. */
  cleanupTimeout: "30s",
  /** `--interval` of `watch` and `serve`: time between the starts of two rounds. */
  roundInterval: "30s",
} as const;

/** The same defaults in milliseconds (the library face, mod.ts). */
export const RUN_DEFAULTS_MS = {
  sampleInterval: 3_000,
  latencyThreshold: 200,
  requestTimeout: 30_000,
  runTimeout: 300_000,
  probeTimeout: 60_000,
  cleanupTimeout: 30_000,
  roundInterval: 30_000,
} as const satisfies Record<keyof typeof RUN_DEFAULTS, number>;
