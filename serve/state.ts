/**
 * What `flyingfish serve` knows between rounds: the latest report, when the last round succeeded,
 * how long rounds take, how often each check changed status, and the API errors the sources met.
 * The HTTP side (serve/http.ts) reads it; the round loop (cli/serve_cmd.ts) writes it.
 */
import type { Layer, Report, Status } from "../report/model.ts";

/** One failed API read, as counted by `flyingfish_api_errors_total`. */
export interface ApiErrorKey {
  /** The cluster's kubeconfig context. */
  cluster: string;
  /** `list`, `discovery`, `exec` or `logs`. */
  operation: string;
  /** The resource (plural, `.group` when not core) or, for exec/logs, `pods/exec` / `pods/log`. */
  resource: string;
  /** `forbidden`, `missing` or `error` (kube/source.ts `Unavailable`). */
  reason: string;
}

/** How often one check instance changed status since the process started. */
export interface TransitionCount {
  check: string;
  layer: Layer;
  peer: string;
  cluster: string;
  count: number;
}

/** The state the metrics and the HTTP endpoints are rendered from. */
export interface ServeSnapshot {
  /** The latest report (null: no round has completed yet). */
  report: Report | null;
  /** When the latest successful round finished (null: none yet). */
  lastSuccessAt: Date | null;
  /** Duration of the latest round, successful or not, in milliseconds (null: none yet). */
  lastRoundMs: number | null;
  /** Rounds by outcome: `success` (a report was produced, whatever it found) or `error`. */
  rounds: { success: number; error: number };
  /** The message of the latest failed round, cleared by a success (never a credential). */
  lastError: string | null;
  /** Status changes per check instance seen so far (0 from the instance's first round on). */
  transitions: readonly TransitionCount[];
  /** API errors by key, with their counts. */
  apiErrors: readonly (ApiErrorKey & { count: number })[];
}

const instanceKey = (check: string, peer: string, cluster: string): string =>
  `${check}\u0000${peer}\u0000${cluster}`;

/** Mutable serve state; {@link ServeState.snapshot} hands out a consistent copy. */
export class ServeState {
  #report: Report | null = null;
  #lastSuccessAt: Date | null = null;
  #lastRoundMs: number | null = null;
  #rounds = { success: 0, error: 0 };
  #lastError: string | null = null;
  #statuses = new Map<string, Status>();
  #transitions = new Map<string, TransitionCount>();
  #apiErrors = new Map<string, ApiErrorKey & { count: number }>();

  /** Records a round that produced `report` (whatever the report says: a failing peering is a successful round). */
  recordRound(report: Report, durationMs: number, at: Date = new Date()): void {
    for (const r of report.results) {
      const peer = r.peer ?? "";
      const key = instanceKey(r.id, peer, r.cluster);
      const before = this.#statuses.get(key);
      // Every instance's counter exists from its first round, at 0: a series that appears at 1
      // hides its first change from increase()/rate() (Prometheus sees no earlier sample).
      const t = this.#transitions.get(key) ??
        { check: r.id, layer: r.layer, peer, cluster: r.cluster, count: 0 };
      if (before !== undefined && before !== r.status) t.count++;
      this.#transitions.set(key, t);
      this.#statuses.set(key, r.status);
    }
    this.#report = report;
    this.#lastSuccessAt = at;
    this.#lastRoundMs = durationMs;
    this.#rounds.success++;
    this.#lastError = null;
  }

  /** Records a round that ended in a tool error (unreachable API server, rejected credentials, …). */
  recordFailure(message: string, durationMs: number): void {
    this.#lastRoundMs = durationMs;
    this.#rounds.error++;
    this.#lastError = message;
  }

  /** Counts one failed API read. */
  countApiError(key: ApiErrorKey): void {
    const k = [key.cluster, key.operation, key.resource, key.reason].join("\u0000");
    const e = this.#apiErrors.get(k) ?? { ...key, count: 0 };
    e.count++;
    this.#apiErrors.set(k, e);
  }

  /** True once a round has completed (`/readyz`). */
  get ready(): boolean {
    return this.#report !== null;
  }

  /** A copy of the state, for one response. */
  snapshot(): ServeSnapshot {
    return {
      report: this.#report,
      lastSuccessAt: this.#lastSuccessAt,
      lastRoundMs: this.#lastRoundMs,
      rounds: { ...this.#rounds },
      lastError: this.#lastError,
      transitions: [...this.#transitions.values()].map((t) => ({ ...t })),
      apiErrors: [...this.#apiErrors.values()].map((e) => ({ ...e })),
    };
  }
}
