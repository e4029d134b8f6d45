// kube's leader_election_master_status gauge: 1 while this process holds the
// Lease named by the `name` label, 0 while it is a standby candidate.
import type { Registry } from 'prom-client';
import { prom } from '../metrics/registry.ts';

const NAME = 'leader_election_master_status';

/** Sets the gauge for `lease` in `registry` (created on first use). */
export function setLeaderStatus(registry: Registry, lease: string, leading: boolean): void {
  let gauge = registry.getSingleMetric(NAME) as prom.Gauge<'name'> | undefined;
  if (!gauge) {
    gauge = new prom.Gauge({
      name: NAME,
      help: 'Whether this process holds the named leader-election Lease (1) or is waiting to take it over (0).',
      labelNames: ['name'],
      registers: [registry],
    });
  }
  gauge.set({ name: lease }, leading ? 1 : 0);
}
