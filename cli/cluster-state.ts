// DIR/cluster.json: what `ksim up` is running (component, pid, state,
// endpoint, restarts, and whether the apiserver is unguarded plain HTTP),
// written by the supervisor at every change. `ksim status` reads it when the
// supervisor's control endpoint does not answer (the supervisor is gone).
import fs from 'node:fs';
import path from 'node:path';
import type { ComponentStatus } from '../shared/chaos/protocol.ts';

/** One supervised component. */
export interface ComponentState {
  name: string;
  pid: number;
  state: ComponentStatus['state'];
  endpoint: string;
  log: string;
  /** ISO time the current process started. */
  startedAt?: string;
  /** How many times the supervisor started it again (chaos start/restart, --restart=on-failure). */
  restarts?: number;
  exitCode?: number;
  signal?: string;
}

/** The whole file. */
export interface ClusterState {
  supervisorPid: number;
  server: string;
  /** The apiserver serves plain HTTP with no authentication (--insecure-http): `ksim status` says so. */
  insecure?: boolean;
  components: ComponentState[];
}

const FILE = 'cluster.json';

/**
 * Writes the state atomically (rename), so a reader never sees half a file.
 * Returns the error instead of throwing when the disk refuses (full,
 * read-only): the supervisor must outlive it, and the last state stays.
 */
export function writeClusterState(dataDir: string, state: ClusterState): Error | undefined {
  const tmp = path.join(dataDir, `${FILE}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, JSON.stringify(state, null, 2));
    fs.renameSync(tmp, path.join(dataDir, FILE));
    return undefined;
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    return err as Error;
  }
}

/** Reads the state, or undefined when no cluster was started in `dataDir`. */
export function readClusterState(dataDir: string): ClusterState | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8'));
  } catch {
    return undefined;
  }
}
