// Which lane of the timeline a write goes in: one lane per component that
// writes, named from the writer's identity and its cause. A person's writes
// go in "user NAME"; the controller-manager's are split by the controller
// that made them; the scheduler has one lane; each node's kubelet has its own.
// The faults a chaos experiment injects (their Events, whose cause is
// ksim-chaos) have a lane of their own, at the top.
import type { Change } from '../../shared/api/history-types.ts';

/** The kinds of lane, top to bottom. */
export type LaneKind = 'chaos' | 'user' | 'apiserver' | 'controller' | 'scheduler' | 'kubelet' | 'other';

/** One lane: its label (unique) and its kind (for ordering and colour). */
export interface Lane {
  label: string;
  kind: LaneKind;
}

const ORDER: LaneKind[] = ['chaos', 'user', 'apiserver', 'controller', 'scheduler', 'kubelet', 'other'];
const CONTROLLER_SA = 'system:serviceaccount:kube-system:';
/** The cause every chaos fault's Event carries (cli/chaos/events.ts). */
export const CHAOS_CONTROLLER = 'ksim-chaos';

/** The lane of one write. */
export function laneOf(change: Pick<Change, 'writer'>): Lane {
  const w = change.writer;
  if (!w) return { label: 'apiserver', kind: 'apiserver' };
  if (w.cause?.controller === CHAOS_CONTROLLER) return { label: 'chaos', kind: 'chaos' };
  const user = w.user;
  // Without a cause, the controller-manager's own writes (its leader Lease) go in a lane of their own.
  if (user === 'system:kube-controller-manager')
    return { label: w.cause ? `controller ${w.cause.controller}` : 'controller-manager', kind: 'controller' };
  // kube-controller-manager with --use-service-account-credentials writes as one ServiceAccount per controller.
  if (user.startsWith(CONTROLLER_SA)) {
    const sa = user.slice(CONTROLLER_SA.length);
    if (w.cause) return { label: `controller ${w.cause.controller}`, kind: 'controller' };
    if (sa.endsWith('-controller') || w.userAgent?.startsWith('kube-controller-manager'))
      return { label: `controller ${sa.replace(/-controller$/, '')}`, kind: 'controller' };
  }
  if (user === 'system:kube-scheduler') return { label: 'scheduler', kind: 'scheduler' };
  if (user.startsWith('system:node:')) return { label: `kubelet ${user.slice('system:node:'.length)}`, kind: 'kubelet' };
  if (user === 'system:apiserver' || user === 'system:kube-apiserver') return { label: 'apiserver', kind: 'apiserver' };
  if (user.startsWith('system:')) return { label: user, kind: 'other' };
  return { label: `user ${user}`, kind: 'user' };
}

/** The distinct lanes of `changes`, in display order (by kind, then by label); `laneOfChange` is laneOf or a cache of it. */
export function lanesOf<C extends Pick<Change, 'writer'>>(changes: readonly C[], laneOfChange: (c: C) => Lane = laneOf): Lane[] {
  const byLabel = new Map<string, Lane>();
  for (const c of changes) {
    const lane = laneOfChange(c);
    if (!byLabel.has(lane.label)) byLabel.set(lane.label, lane);
  }
  return [...byLabel.values()].sort(
    (a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0),
  );
}
