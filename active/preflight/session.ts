/**
 * One `preflight --probe` session: the fleet (active/fleet/preflight_fleet.ts: pre-flight, the
 * `flyingfish-preflight-<id>` namespaces, dry run, echo and client pods, the throwaway UDP
 * Service), the probes — PF-API and PF-EXP, then PF-UDP both ways at once, then PF-MTU over the
 * path PF-DIR picks — and ALWAYS the cleanup, through the same signal handling as `probe`
 * (fleet/signals.ts withSignalCleanup: Ctrl-C and --timeout remove everything; a second Ctrl-C
 * leaves at once, printing the cleanup command). Returns every PF-[P] outcome by check ID.
 */
import type { ClusterView, Outcome } from "../../checks/types.ts";
import type { TlsDialResult } from "../../probes/hub.ts";
import { cleanupRun } from "../fleet/cleanup.ts";
import {
  openPreflightFleet,
  type PreflightFleet,
  type PreflightSideHandle,
} from "../fleet/preflight_fleet.ts";
import { newRunId } from "../fleet/run_id.ts";
import { type StopCause, withSignalCleanup } from "../fleet/signals.ts";
import { cleanupCommand, type ProbeTarget } from "../fleet/target.ts";
import type { CleanupRecord, CreatedObject } from "../model.ts";
import { runNamespace } from "../model.ts";
import type { ActiveControl } from "../session.ts";
import { abortable } from "../../time.ts";
import { judgeApi } from "./api/judge.ts";
import { measureApi, providerApiUrl } from "./api/measure.ts";
import { judgeDirection, recommend } from "./direction/judge.ts";
import { candidatesOf, judgeExposure } from "./exposure/judge.ts";
import { exposureOf, readNodes } from "./exposure/measure.ts";
import {
  type Candidate,
  type Direction,
  type Exposure,
  otherSide,
  PF_IDS,
  type PfSide,
  type PreflightProbeOptions,
} from "./model.ts";
import { judgeMtu } from "./mtu/judge.ts";
import { measureMtu } from "./mtu/measure.ts";
import { gatewayPlacement } from "./placement.ts";
import { judgeUdp } from "./udp/judge.ts";
import { measureDirection } from "./udp/measure.ts";

/** One cluster of the session. */
export interface PreflightCluster {
  view: ClusterView;
  target: ProbeTarget;
}

/** What a session leaves: the outcomes, what it created and removed, and what stopped it. */
export interface PreflightSessionOutput {
  runId: string;
  outcomes: Map<string, Outcome>;
  created: CreatedObject[];
  cleanup: CleanupRecord[];
  stoppedBy: StopCause | null;
  /** Wall time of each stage, for the benchmark (ms). */
  phases: Record<string, number>;
}

/** Runs the session (see the module comment). Tool errors (pre-flight refused) propagate after cleanup. */
export async function runPreflight(
  consumer: PreflightCluster,
  provider: PreflightCluster,
  options: PreflightProbeOptions,
  ctl: ActiveControl,
  hooks: { hostDial?: (url: string) => Promise<TlsDialResult> } = {},
): Promise<PreflightSessionOutput> {
  const say = (l: string) => ctl.onProgress?.(l);
  const runId = options.runId ?? newRunId();
  const ns = runNamespace(runId, "preflight");
  const clusters: Record<PfSide, PreflightCluster> = {
    consumer: { ...consumer, target: { ...consumer.target, side: "local", name: consumer.view.name } },
    provider: { ...provider, target: { ...provider.target, side: "remote", name: provider.view.name } },
  };
  const targets = [clusters.consumer.target, clusters.provider.target];
  const command = cleanupCommand(runId, targets);
  const servers: PfSide[] = options.serverSide ? [options.serverSide] : ["provider", "consumer"];
  const type = options.serviceType ?? "LoadBalancer";
  const created: CreatedObject[] = [];
  const phases: Record<string, number> = {};
  let preflightRefused = false;
  const mark = (name: string, t0: number) => phases[name] = Math.round(performance.now() - t0);
  say(`run ${runId}: preflight probes, namespace ${ns} in ${targets.map((t) => t.name).join(", ")}`);

  const body = async (stop: AbortSignal): Promise<Map<string, Outcome>> => {
    const signal = AbortSignal.any([stop, ctl.signal]);
    try {
      // Every stage is raced against the stop: Ctrl-C during an exec goes straight to the cleanup.
      return await abortable(probes(signal), signal);
    } catch (err) {
      if (signal.aborted) return stopped(signal);
      throw err;
    }
  };

  const probes = async (signal: AbortSignal): Promise<Map<string, Outcome>> => {
    let t0 = performance.now();
    let fleet: PreflightFleet;
    try {
      fleet = await openPreflightFleet({
        runId,
        image: options.images.probe,
        port: options.port,
        timeoutMs: options.probeTimeoutMs,
        sides: (["consumer", "provider"] as const).map((side) => ({
          target: clusters[side].target,
          roles: [
            ...(servers.includes(side) ? ["echo" as const] : []),
            ...(servers.includes(otherSide(side)) || side === "consumer" ? ["client" as const] : []),
          ],
          service: servers.includes(side)
            ? { type, port: options.port, ...(options.nodePort ? { nodePort: options.nodePort } : {}) }
            : null,
          placement: {
            echo: options.placement?.[side] ?? gatewayPlacement(clusters[side].view, "server"),
            client: options.placement?.[side] ?? gatewayPlacement(clusters[side].view, "client"),
          },
        })),
      }, { signal, onProgress: say, onCreated: (c) => created.push(c) });
    } catch (err) {
      if ((err as Error)?.name === "PreflightError") preflightRefused = true;
      throw err;
    }
    mark("fleet", t0);
    if (signal.aborted) return stopped(signal);
    const handle = (side: PfSide): PreflightSideHandle =>
      fleet.sides.find((s) => s.side === clusters[side].target.side)!;

    // PF-API and PF-EXP at once.
    t0 = performance.now();
    const api = providerApiUrl(clusters.provider.view);
    const [apiMeasured, exposures] = await Promise.all([
      measureApi({
        api,
        consumer: clusters.consumer.target,
        namespace: ns,
        clientPod: handle("consumer").pods.client,
        timeoutMs: Math.min(options.probeTimeoutMs, 10_000),
        signal,
        hostDial: options.hostProbe === false ? null : hooks.hostDial,
      }),
      Promise.all(servers.map(async (side): Promise<Exposure> => {
        const h = handle(side);
        const placed = options.placement?.[side] ?? gatewayPlacement(clusters[side].view, "server");
        const nodes = await readNodes(h, placed?.nodeSelector, signal);
        return exposureOf(side, clusters[side].view.name, h, ns, {
          type,
          port: options.port,
          boundMs: options.probeTimeoutMs,
        }, nodes);
      })),
    ]);
    mark("api+exposure", t0);

    // PF-UDP: both directions at once.
    t0 = performance.now();
    say(`PF-UDP: echo ${servers.map((s) => `${otherSide(s)} → ${s}`).join(", ")}`);
    const nonce = runId;
    const directions: Direction[] = await Promise.all(servers.map((server) => {
      const client = otherSide(server);
      const e = exposures.find((x) => x.side === server)!;
      const candidates: Candidate[] = candidatesOf(e);
      if (options.natEndpoint && server === (options.serverSide ?? "provider")) {
        candidates.push({
          via: "PortMapping",
          address: options.natEndpoint.address,
          port: options.natEndpoint.port,
          ...(e.nodePort !== null ? { forwardsTo: e.nodePort } : {}),
        });
      }
      return measureDirection({
        server,
        client,
        serverCluster: clusters[server].view.name,
        clientTarget: clusters[client].target,
        namespace: ns,
        clientPod: handle(client).pods.client,
        echoPod: handle(server).pods.echo,
        candidates,
        nonce,
      });
    }));
    mark("udp", t0);

    // PF-DIR from the directions; PF-MTU over the path it picked.
    t0 = performance.now();
    const rec = recommend(directions, options.serverSide);
    const dir = judgeDirection(directions, options.serverSide);
    let mtu: Outcome;
    if (rec) {
      const clientPod = handle(rec.direction.client).pods.client;
      const search = await measureMtu({
        clientTarget: clusters[rec.direction.client].target,
        namespace: ns,
        clientPod: clientPod?.name ?? "",
        candidate: rec.echo.candidate,
        direction: { server: rec.direction.server, client: rec.direction.client },
        nonce,
        signal,
        deadline: Date.now() + options.probeTimeoutMs,
      });
      mtu = judgeMtu(search, options.mtu, rec.facts);
    } else mtu = judgeMtu(null, options.mtu, null);
    mark("mtu", t0);

    return new Map<string, Outcome>([
      [PF_IDS.api, judgeApi(api, apiMeasured.pod, apiMeasured.host, apiMeasured.why)],
      [PF_IDS.exposure, judgeExposure(exposures, options.serverSide ?? "provider")],
      [PF_IDS.udp, judgeUdp(directions, ns)],
      [PF_IDS.direction, dir],
      [PF_IDS.mtu, mtu],
    ]);
  };

  const cleanup = async (): Promise<CleanupRecord[]> => {
    if (preflightRefused) return [];
    const t0 = performance.now();
    if (!options.keep) say(`cleanup: removing ${ns} from ${targets.map((t) => t.name).join(", ")}`);
    const records = (await Promise.all(
      targets.map((t) =>
        cleanupRun(t, runId, {
          budgetMs: options.cleanupTimeoutMs,
          keep: options.keep,
          kind: "preflight",
          offloading: false,
        })
      ),
    )).flat().map((r) =>
      r.status === "kept" ? { ...r, detail: `${r.detail}; remove it with: ${command}` } : r
    );
    if (options.keep) say(`kept ${ns}: remove it with: ${command}`);
    for (const r of records.filter((r) => r.status === "stuck" || r.status === "failed")) {
      say(`cleanup: ${r.cluster} ${r.namespace} ${r.status}: ${r.detail}; retry with: ${command}`);
    }
    mark("cleanup", t0);
    return records;
  };

  const out = await withSignalCleanup(command, body, cleanup, {
    timeoutMs: ctl.runTimeoutMs,
    host: ctl.signalHost,
    write: ctl.write,
  });
  return { runId, outcomes: out.value, created, cleanup: out.cleanup, stoppedBy: out.stoppedBy, phases };
}

/** Every PF-[P] check `unknown` for a run stopped before its probes ended. */
function stopped(signal: AbortSignal): Map<string, Outcome> {
  const r = signal.reason;
  const why = r instanceof Error ? r.message : typeof r === "string" ? r : "interrupted";
  const o: Outcome = { status: "unknown", summary: `not probed: ${why}; what the run created is removed` };
  return new Map(Object.values(PF_IDS).map((id) => [id, o]));
}
