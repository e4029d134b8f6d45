// autoscaling HorizontalPodAutoscaler printer (kube's printHorizontalPodAutoscaler):
// Name, Reference ("Kind/name"), Targets (formatHPAMetrics: "cpu: 45%/50%",
// "<unknown>" until the controller reports a current value, at most two
// metrics then "+ N more..."), MinPods, MaxPods, Replicas, Age. A v1 object is
// printed as the v2 object it is stored as, as kube prints the internal type.
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import { hpaV1ToV2 } from '../registry/kinds/hpa-conversion.ts';
import { since } from './duration.ts';
import { int } from './format.ts';
import { canonicalQuantity } from './quantity.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

const UNKNOWN = '<unknown>';
const q = (v: unknown): string => canonicalQuantity(v as string);
const has = (v: unknown): boolean => v !== undefined && v !== null;

/** One metric's "current/target" cell part. */
function formatMetric(spec: MetricSpec, status: MetricStatus | undefined): string {
  switch (spec.type) {
    case 'External': {
      const t = spec.external?.target ?? { type: '' };
      if (has(t.averageValue)) {
        const cur = has(status?.external?.current?.averageValue) ? q(status!.external!.current.averageValue) : UNKNOWN;
        return `${cur}/${q(t.averageValue)} (avg)`;
      }
      const cur = has(status?.external?.current?.value) ? q(status!.external!.current.value) : UNKNOWN;
      return `${cur}/${q(t.value)}`;
    }
    case 'Pods': {
      const cur = has(status?.pods?.current?.averageValue) ? q(status!.pods!.current.averageValue) : UNKNOWN;
      return `${cur}/${q(spec.pods?.target?.averageValue)}`;
    }
    case 'Object': {
      const t = spec.object?.target ?? { type: '' };
      if (has(t.averageValue)) {
        const cur = has(status?.object?.current?.averageValue) ? q(status!.object!.current.averageValue) : UNKNOWN;
        return `${cur}/${q(t.averageValue)} (avg)`;
      }
      const cur = has(status?.object?.current?.value) ? q(status!.object!.current.value) : UNKNOWN;
      return `${cur}/${q(t.value)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const src = spec.type === 'Resource' ? spec.resource : spec.containerResource;
      const cur = spec.type === 'Resource' ? status?.resource?.current : status?.containerResource?.current;
      const t = src?.target ?? { type: '' };
      const name = src?.name ?? '';
      if (has(t.averageValue)) return `${name}: ${has(cur?.averageValue) ? q(cur!.averageValue) : UNKNOWN}/${q(t.averageValue)}`;
      const current = has(cur?.averageUtilization) ? `${cur!.averageUtilization}%` : UNKNOWN;
      const target = has(t.averageUtilization) ? `${t.averageUtilization}%` : '<auto>';
      return `${name}: ${current}/${target}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics: "<none>" without metrics, the first two, then "+ N more...". */
export function formatHPAMetrics(specs: MetricSpec[] | undefined, statuses: MetricStatus[] | undefined): string {
  if (!specs || specs.length === 0) return '<none>';
  const list = specs.map((s, i) => formatMetric(s, statuses?.[i]));
  const max = 2;
  if (list.length <= max) return list.join(', ');
  return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
}

/** autoscaling HorizontalPodAutoscaler: Name, Reference, Targets, MinPods, MaxPods, Replicas, Age. */
export const horizontalPodAutoscalerPrinter: Printer<HorizontalPodAutoscaler | HPAv1> = {
  columns: [
    nameColumn(),
    column('Reference', 'string', 'The target resource to scale: its kind and name.'),
    column('Targets', 'string', 'The metrics whose values decide the replica count: current/target.'),
    column('MinPods', 'string', 'The lower limit of replicas the autoscaler may scale down to.'),
    column('MaxPods', 'string', 'The upper limit of replicas the autoscaler may scale up to.'),
    column('Replicas', 'string', 'The current number of replicas of the target, as the autoscaler last saw it.'),
    ageColumn(),
  ],
  row(obj, ctx: PrintContext): PrintedRow {
    const hpa: HorizontalPodAutoscaler = obj.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(obj) : (obj as HorizontalPodAutoscaler);
    const ref = hpa.spec?.scaleTargetRef;
    const min = hpa.spec?.minReplicas;
    return {
      cells: [
        hpa.metadata?.name ?? '',
        `${ref?.kind ?? ''}/${ref?.name ?? ''}`,
        formatHPAMetrics(hpa.spec?.metrics, hpa.status?.currentMetrics),
        has(min) ? String(min) : '<unset>',
        int(hpa.spec?.maxReplicas),
        int(hpa.status?.currentReplicas),
        since(hpa.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
