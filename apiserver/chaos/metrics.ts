// ksim_chaos_injected_total{kind}: how many times a fault acted, on the
// apiserver's own registry (served at /metrics). Kinds: latency and error
// count requests; watch-delay and watch-hold count watches a fault began to
// delay or hold; watch-drop counts watches closed; compact counts forced
// compactions.
import type { Registry } from 'prom-client';
import { prom } from '../../shared/metrics/registry.ts';

export type InjectedKind = 'latency' | 'error' | 'watch-delay' | 'watch-hold' | 'watch-drop' | 'compact';

let counter: InstanceType<typeof prom.Counter<'kind'>> | undefined;

/** Registers the counter on the apiserver's registry (a later call, for another registry, takes over). */
export function registerChaosMetrics(registry: Registry): void {
  counter = new prom.Counter({
    name: 'ksim_chaos_injected_total',
    help: 'Faults injected by ksim chaos into this apiserver, by kind (requests delayed or refused, watches delayed, held or dropped, compactions).',
    labelNames: ['kind'],
    registers: [registry],
  });
}

/** Counts one injection. */
export function countInjected(kind: InjectedKind, n = 1): void {
  counter?.inc({ kind }, n);
}
