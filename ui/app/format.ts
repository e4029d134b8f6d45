// Short texts for the object view's tables.
import type { Writer } from '../../shared/api/history-types.ts';
import { laneOf } from '../timeline/lanes.ts';

/** "controller deployment update/status as kube-controller-manager · default/web": who wrote (by lane), how and why. */
export function writerText(w: Writer | undefined): string {
  if (!w) return '—';
  const verb = `${w.verb}${w.subresource ? `/${w.subresource}` : ''}`;
  let s = `${laneOf({ writer: w }).label} ${verb}`;
  if (w.fieldManager) s += ` as ${w.fieldManager}`;
  if (w.cause?.key) s += ` · ${w.cause.key}`;
  if (w.cause?.detail) s += `: ${w.cause.detail}`;
  return s;
}

/** The writer in full, for a hover: user, groups, user agent, cause. */
export function writerTitle(w: Writer | undefined): string {
  if (!w) return 'no writer recorded';
  const lines = [`user: ${w.user}`];
  if (w.groups?.length) lines.push(`groups: ${w.groups.join(', ')}`);
  if (w.userAgent) lines.push(`user agent: ${w.userAgent}`);
  if (w.cause) lines.push(`cause: ${JSON.stringify(w.cause)}`);
  return lines.join('\n');
}

/** A JSON value on one line, cut to `max` characters. */
export function valueText(v: unknown, max = 120): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
