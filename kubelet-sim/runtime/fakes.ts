// Test doubles for the lifecycle engine: a recorder that keeps Events in
// memory, ConfigMaps and Secrets from plain maps, and a node with a /24.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ConfigSource } from './pod-config.ts';
import type { NodeRuntime, Recorder } from './pod-worker.ts';
import { PodCidr } from '../node/ipam.ts';

/** One recorded Event, flattened for golden files. */
export interface RecordedEvent {
  at: number;
  line: string;
}

/** Keeps Events in order. */
export class MemoryRecorder implements Recorder {
  readonly events: RecordedEvent[] = [];
  constructor(private readonly now: () => number) {}
  event(_pod: Pod, type: string, reason: string, message: string, fieldPath?: string): void {
    this.events.push({ at: this.now(), line: `${type} ${reason}${fieldPath ? ` (${fieldPath})` : ''}: ${message}` });
  }
}

/** ConfigMaps and Secrets keyed "namespace/name". */
export class MapConfigSource implements ConfigSource {
  readonly configMaps = new Map<string, { data?: Record<string, string> }>();
  readonly secrets = new Map<string, { data?: Record<string, string> }>();
  /** The cluster CA for ca.crt, when a test sets one. */
  rootCa?: () => string | undefined;
  configMap(ns: string, name: string) {
    return this.configMaps.get(`${ns}/${name}`);
  }
  secret(ns: string, name: string) {
    return this.secrets.get(`${ns}/${name}`);
  }
}

/** A node runtime for one test node. */
export function fakeNode(name = 'node-0', cidr = '10.244.0.0/24', hostIP = '172.18.0.2'): NodeRuntime {
  const ipam = new PodCidr(cidr);
  return {
    name,
    hostIP,
    images: new Set(),
    allocateIP: (k) => ipam.allocate(k),
    reserveIP: (k, ip) => ipam.reserve(k, ip),
    releaseIP: (k) => ipam.release(k),
  };
}
