// What each running container of a node uses of the resource under pressure,
// for the eviction manager's ranking: memory is the working set the usage
// model gives `kubectl top` (runtime/usage/: the image's baseline plus what
// its command holds, capped at limits.memory); disk is the container's log
// plus a 1 MiB writable layer; pids are one process per container plus one
// per core its command keeps busy (stress --cpu N runs N workers).
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { quantityNumber } from '../../shared/api/quantity-number.ts';
import { PROCESS_CATALOG, type ImageInfo } from '../runtime/images/catalog.ts';
import { parseImageRef } from '../runtime/images/reference.ts';
import type { LogStore } from '../runtime/log-store.ts';
import { baselineOf } from '../runtime/usage/baselines.ts';
import { demandOf } from '../runtime/usage/profile.ts';
import type { PressureKind } from '../node/node-object.ts';
import { argvOf, servesImage } from '../server/resource-metrics.ts';
import type { PodUsage } from './ranking.ts';

const PAGE = 4096;
const WRITABLE_LAYER = 1024 * 1024;

const infoOf = (image: string | undefined): ImageInfo | undefined => {
  const parsed = parseImageRef(image ?? '');
  return 'ref' in parsed ? PROCESS_CATALOG.info(parsed.ref.repository) : undefined;
};

const logBytes = (lines: { text: string }[] | undefined) => (lines ?? []).reduce((a, l) => a + l.text.length, 0);

/** The usage of `pod`'s running containers (per the status kubelet wrote), for `kind`. */
export function usageOf(pod: Pod, kind: PressureKind, logs?: LogStore): PodUsage {
  const specs = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, c]));
  const statuses: ContainerStatus[] = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const containers: PodUsage['containers'] = [];
  for (const st of statuses) {
    const spec = specs.get(st.name);
    if (!spec || !st.state?.running) continue;
    const info = infoOf(spec.image);
    const demand = demandOf(argvOf(spec, info));
    let usage: number;
    if (kind === 'memory') {
      const bytes = Math.ceil((baselineOf(info, servesImage(spec, info)).memoryBytes + demand.memoryBytes) / PAGE) * PAGE;
      const limit = quantityNumber(spec.resources?.limits?.memory);
      usage = Number.isFinite(limit) && limit > 0 ? Math.min(bytes, Math.floor(limit / PAGE) * PAGE) : bytes;
    } else if (kind === 'disk') {
      const log = logs?.get(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', st.name);
      usage = WRITABLE_LAYER + logBytes(log?.current) + logBytes(log?.previous);
    } else usage = 1 + Math.ceil(demand.cpuCores);
    containers.push({ name: st.name, usage });
  }
  return { pod, containers };
}
