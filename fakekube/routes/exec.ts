/**
 * POST/GET …/pods/<name>/exec: the exec WebSocket (channel protocol v4/v5). Probe commands go to
 * the scenario's data plane (netmodel.ts) when it takes them; everything else runs against the
 * WireGuard/iproute2 emulation of exec.ts. Injected exec faults (faults.ts) apply here.
 */
import { type PodWireguardState, runCommand } from "../exec.ts";
import { field } from "../object.ts";
import { streamExecWhenReady } from "../probe_exec.ts";
import { statusResponse } from "../status.ts";
import { parseProtocols, pickProtocol, streamExec, streamExecFault } from "../websocket.ts";
import { containerFor, findPod, podNotFound } from "./pods.ts";
import { forbidden, type ServerState } from "./state.ts";

/** Answers an exec request for pod `ns/podName` (upgrading it to a WebSocket when it is valid). */
export function routeExec(s: ServerState, req: Request, url: URL, ns: string, podName: string): Response {
  const { cfg } = s;
  const r = { plural: "pods/exec", group: "" };
  if (
    !s.permissions.allows({
      verb: "create",
      resource: "pods",
      subresource: "exec",
      namespace: ns,
      name: podName,
    })
  ) {
    return forbidden("create", r, ns, podName);
  }
  const pod = findPod(s.resources, ns, podName);
  if (!pod) return podNotFound(podName);
  const container = containerFor(pod, url.searchParams.get("container"));
  if (container instanceof Response) return container;
  const command = url.searchParams.getAll("command");
  if (command.length === 0) {
    return statusResponse(400, "BadRequest", "you must specify at least one command for the container");
  }
  const phase = field(pod.status, "phase");
  if (phase === "Succeeded" || phase === "Failed") {
    return statusResponse(
      400,
      "BadRequest",
      `cannot exec into a container in a completed pod; current phase is ${phase}`,
    );
  }
  if (phase === "Pending") {
    return statusResponse(
      500,
      "InternalError",
      `unable to upgrade connection: container not found ("${container}")`,
    );
  }
  if ((req.headers.get("upgrade") ?? "").toLowerCase() !== "websocket") {
    return statusResponse(400, "BadRequest", "Upgrade request required");
  }
  const protocol = pickProtocol(parseProtocols(req.headers.get("sec-websocket-protocol")));
  if (!protocol) {
    return statusResponse(
      400,
      "BadRequest",
      "unable to upgrade: no supported subprotocol (want v5/v4.channel.k8s.io)",
    );
  }
  const streams = {
    stdout: url.searchParams.get("stdout") !== "false",
    stderr: url.searchParams.get("stderr") !== "false",
  };
  const key = `${ns}/${podName}`;
  const state: PodWireguardState | undefined = Object.hasOwn(cfg.wireguard, key)
    ? cfg.wireguard[key]
    : undefined;
  // Probe commands go to the scenario's network model; it runs until done or the client leaves.
  const netAbort = new AbortController();
  const pending = s.execFaults.has(req)
    ? null
    : cfg.network?.exec(cfg.name, pod, container, command, netAbort.signal) ?? null;
  if (pending) {
    const { socket, response } = Deno.upgradeWebSocket(req);
    response.headers.set("sec-websocket-protocol", protocol);
    const stop = () => netAbort.abort();
    socket.addEventListener("close", stop);
    s.closing.signal.addEventListener("abort", stop, { once: true });
    const done = pending.finally(() => s.closing.signal.removeEventListener("abort", stop));
    streamExecWhenReady(socket, protocol, command, done, streams);
    return response;
  }
  const result = runCommand(state, command, {
    now: new Date(),
    elapsedSeconds: s.execElapsedSeconds(),
  });
  // Deno only matches `protocol` against a header split on ", "; clients such as Node's `ws` send
  // "a,b". Upgrade without it and set the negotiated protocol on the 101 response ourselves.
  const { socket, response } = Deno.upgradeWebSocket(req);
  response.headers.set("sec-websocket-protocol", protocol);
  const execFault = s.execFaults.get(req);
  if (execFault) {
    if (execFault === "hang") {
      s.hanging.add(socket);
      socket.addEventListener("close", () => s.hanging.delete(socket));
    }
    streamExecFault(socket, protocol, result, execFault);
    return response;
  }
  streamExec(socket, protocol, command, result, streams);
  return response;
}
