// postStart and preStop handlers as kubelet's handlerRunner runs them (exec
// in the container, httpGet to the Pod, sleep), with kubelet's messages for a
// failure, and the containerd error for an exec whose executable is missing
// (shared with exec probes, which report it as an errored probe).
import { createHash } from 'node:crypto';
import type { Container, LifecycleHandler, Pod } from 'kubernetes-types/core/v1.js';
import { formatPod } from './security-context.ts';
import type { ExitResult } from './shell.ts';

/** What a handler can reach of its container. */
export interface HookHost {
  podIP: string;
  /** Runs argv in the container, stdout and stderr apart. */
  exec(argv: string[], out: (t: string) => void, err: (t: string) => void): Promise<ExitResult>;
  /** GET port/path on the Pod: the HTTP status, or undefined when the connection is refused. */
  httpGet(port: number | string, path: string): number | undefined;
  sleep(seconds: number): Promise<void>;
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);

/**
 * containerd's error when argv[0] does not exist in the container (the simulated shell reports such a
 * command with exit 127 and `X: not found`), or undefined when it ran.
 */
export function missingExecutable(argv: string[], res: ExitResult, output: string, execId: string): string | undefined {
  const cmd = argv[0] ?? '';
  if (res.exitCode !== 127 || SHELLS.has(cmd.slice(cmd.lastIndexOf('/') + 1))) return undefined;
  if (!output.includes(`${cmd}: not found`) && !output.includes('executable file not found')) return undefined;
  const why = cmd.includes('/')
    ? `exec: ${JSON.stringify(cmd)}: stat ${cmd}: no such file or directory`
    : `exec: ${JSON.stringify(cmd)}: executable file not found in $PATH`;
  return `rpc error: code = Unknown desc = failed to exec in container: failed to start exec ${JSON.stringify(execId)}: OCI runtime exec failed: exec failed: unable to start container process: ${why}: unknown`;
}

/** An exec's id as containerd makes them (64 hex digits). */
export function execId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** The URL kubelet requests for an httpGet handler or probe. */
export function handlerURL(
  h: { scheme?: string; host?: string; port: number | string; path?: string },
  podIP: string,
  port: number | string,
): string {
  const host = h.host || podIP;
  return `${(h.scheme ?? 'HTTP').toLowerCase()}://${host}:${port}${h.path ?? ''}`;
}

/** Go's error for a refused GET. */
export function refusedGet(url: string): string {
  const hostPort = /^[a-z]+:\/\/([^/]+)/.exec(url)?.[1] ?? '';
  return `Get ${JSON.stringify(url)}: dial tcp ${hostPort}: connect: connection refused`;
}

/** The port number of a handler's (possibly named) port. */
export function portNumber(c: Container, port: number | string): number | string {
  if (typeof port === 'number') return port;
  return c.ports?.find((p) => p.name === port)?.containerPort ?? port;
}

/**
 * Runs one lifecycle handler to its end; resolves with kubelet's failure
 * message (the FailedPostStartHook event's), or undefined when it succeeded.
 * An HTTP handler fails only when it cannot connect: any status is an answer.
 */
export async function runHook(pod: Pod, c: Container, h: LifecycleHandler, host: HookHost): Promise<string | undefined> {
  if (h.exec) {
    const argv = h.exec.command ?? [];
    let stdout = '';
    let stderr = '';
    const res = await host.exec(
      argv,
      (t) => (stdout += t),
      (t) => (stderr += t),
    );
    if (res.exitCode === 0) return undefined;
    const missing = missingExecutable(argv, res, stdout + stderr, execId(`${pod.metadata?.uid}/${c.name}/${argv.join(' ')}`));
    const err = missing ?? `command '${argv.join(' ')}' exited with ${res.exitCode}: ${stderr}`;
    const output = missing ? '' : stdout + stderr;
    return `Exec lifecycle hook ([${argv.join(' ')}]) for Container ${JSON.stringify(c.name)} in Pod ${JSON.stringify(formatPod(pod))} failed - error: ${err}, message: ${JSON.stringify(output)}`;
  }
  if (h.httpGet) {
    const port = portNumber(c, h.httpGet.port);
    const status = host.httpGet(port, h.httpGet.path ?? '/');
    if (status !== undefined) return undefined;
    const url = handlerURL(h.httpGet, host.podIP, port);
    return `HTTP lifecycle hook (${h.httpGet.path ?? ''}) for Container ${JSON.stringify(c.name)} in Pod ${JSON.stringify(formatPod(pod))} failed - error: ${refusedGet(url)}`;
  }
  if (h.sleep) await host.sleep(h.sleep.seconds);
  return undefined;
}
