// What each image's process uses when it does nothing in particular, and what
// one request to its server costs: figures of the order `kubectl top` shows
// for these images on a real node (nginx idles at 0-1m and a few Mi, mysql at
// a few hundred Mi, php-apache burns ~10 ms of CPU per request of the HPA
// walkthrough). An image's catalog entry may set its own (ImageInfo.usage).
import { quantityNumber } from '../../../shared/api/quantity-number.ts';
import type { ImageInfo } from '../images/catalog.ts';

/** Idle usage and per-request cost: cores, bytes, core-seconds. */
export interface Baseline {
  cpuCores: number;
  memoryBytes: number;
  cpuPerRequest: number;
}

const Mi = 1024 * 1024;
const b = (cpuCores: number, memoryMi: number, cpuPerRequest = 0.0002): Baseline => ({
  cpuCores,
  memoryBytes: memoryMi * Mi,
  cpuPerRequest,
});

/** By the image's server kind (ImageInfo.serves). */
const BY_SERVER: Record<string, Baseline> = {
  nginx: b(0.0005, 3.2, 0.0002),
  httpd: b(0.001, 6.5, 0.0003),
  agnhost: b(0.0005, 9.5, 0.0002),
  redis: b(0.002, 3.1, 0.00005),
  memcached: b(0.0005, 2.4, 0.00005),
  mysql: b(0.006, 372, 0.001),
  postgres: b(0.002, 24, 0.001),
  mongo: b(0.007, 78, 0.001),
  pause: b(0, 0.3, 0),
  coredns: b(0.002, 13, 0.0001),
  'hpa-example': b(0.001, 11, 0.01),
  echoserver: b(0.0005, 4.5, 0.0002),
  bootcamp: b(0.0005, 9, 0.0003),
  'hello-app': b(0, 2.1, 0.0001),
  'http-echo': b(0, 2.3, 0.0001),
  whoami: b(0, 2, 0.0001),
  'node-hello': b(0.0005, 9, 0.0003),
  'webapp-color': b(0.001, 28, 0.001),
  liveness: b(0, 2.1, 0.0001),
  tcp: b(0.001, 30, 0.0005),
};

/** A shell and what it runs (sleep, a loop with sleeps). */
const SHELL: Baseline = b(0, 0.4, 0);

/** The baseline of a container of `info`; `serving` when it runs the image's server. */
export function baselineOf(info: ImageInfo | undefined, serving: boolean): Baseline {
  const table = serving && info?.serves ? (BY_SERVER[info.serves] ?? SHELL) : SHELL;
  const own = info?.usage;
  if (!own) return table;
  const n = (q: string | undefined, d: number) => {
    const v = quantityNumber(q);
    return Number.isFinite(v) ? v : d;
  };
  return {
    cpuCores: n(own.cpu, table.cpuCores),
    memoryBytes: n(own.memory, table.memoryBytes),
    cpuPerRequest: n(own.cpuPerRequest, table.cpuPerRequest),
  };
}
