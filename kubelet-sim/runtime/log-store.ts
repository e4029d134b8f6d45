// Container logs as kubelet keeps them: per container, the current run and
// the previous one (`kubectl logs --previous`), each line stamped with the
// simulated time it was written, with live followers for `--follow`.

/** One written line (its text keeps the trailing newline when it had one). */
export interface LogLine {
  at: number;
  text: string;
}

const MAX_LINES = 10_000;

/** The logs of one container. */
export class ContainerLog {
  current: LogLine[] = [];
  previous: LogLine[] | undefined;
  private partial = '';
  private readonly followers = new Set<(l: LogLine) => void>();
  private readonly closers = new Set<() => void>();

  /** Appends stdout text, split into lines. */
  write(text: string, at: number): void {
    const all = this.partial + text;
    const parts = all.split('\n');
    this.partial = parts.pop() ?? '';
    for (const p of parts) this.push({ at, text: p + '\n' });
  }

  private push(line: LogLine): void {
    this.current.push(line);
    if (this.current.length > MAX_LINES) this.current.splice(0, this.current.length - MAX_LINES);
    for (const f of this.followers) f(line);
  }

  /** A new run of the container starts: the current log becomes the previous one. */
  rotate(at: number): void {
    this.flush(at);
    this.previous = this.current;
    this.current = [];
    for (const c of this.closers) c();
  }

  /** Ends a half-written last line. */
  flush(at: number): void {
    if (this.partial) {
      this.push({ at, text: this.partial });
      this.partial = '';
    }
  }

  /** Follows new lines until the run ends or the returned function is called. */
  follow(onLine: (l: LogLine) => void, onEnd: () => void): () => void {
    this.followers.add(onLine);
    this.closers.add(onEnd);
    return () => {
      this.followers.delete(onLine);
      this.closers.delete(onEnd);
    };
  }

  /** The run ended for good (the container exited or the pod is gone). */
  end(at: number): void {
    this.flush(at);
    for (const c of this.closers) c();
  }
}

/** The options of a log request (kubelet's PodLogOptions). */
export interface LogQuery {
  previous?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: number;
  timestamps?: boolean;
  limitBytes?: number;
}

/** Formats a run's lines for a log request. */
export function selectLines(lines: LogLine[], q: LogQuery, now: number): LogLine[] {
  let out = lines;
  const since = q.sinceTime ?? (q.sinceSeconds !== undefined ? now - q.sinceSeconds * 1000 : undefined);
  if (since !== undefined) out = out.filter((l) => l.at >= since);
  if (q.tailLines !== undefined && q.tailLines >= 0) out = out.slice(Math.max(0, out.length - q.tailLines));
  return out;
}

/** One line as `kubectl logs --timestamps` shows it (Go's RFC3339Nano: trailing zeros of the fraction dropped). */
export function formatLine(l: LogLine, timestamps?: boolean): string {
  if (!timestamps) return l.text;
  const iso = new Date(l.at).toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
  return `${iso} ${l.text}`;
}

/** Every container log of one process, keyed `namespace/pod/container`. */
export class LogStore {
  private readonly logs = new Map<string, ContainerLog>();

  /** The log of a container, created on first use. */
  for(namespace: string, pod: string, container: string): ContainerLog {
    const key = `${namespace}/${pod}/${container}`;
    let log = this.logs.get(key);
    if (!log) {
      log = new ContainerLog();
      this.logs.set(key, log);
    }
    return log;
  }

  /** The log of a container if it ever ran. */
  get(namespace: string, pod: string, container: string): ContainerLog | undefined {
    return this.logs.get(`${namespace}/${pod}/${container}`);
  }

  /** Drops every log of a pod (it is gone from the API). */
  dropPod(namespace: string, pod: string): void {
    const prefix = `${namespace}/${pod}/`;
    for (const k of this.logs.keys()) if (k.startsWith(prefix)) this.logs.delete(k);
  }
}
