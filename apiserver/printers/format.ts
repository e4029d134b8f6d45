// Small formatting helpers shared by the printers, each mirroring the kube
// helper it is named after: label sets, label selectors, container lists,
// IntOrString values and host:port pairs.
import type { LabelSelector as MetaLabelSelector } from 'kubernetes-types/meta/v1.js';
import { formatLabelSelector, labelSelectorString, selectorFromLabelSelector } from '../../shared/labels/index.ts';
import { compareBytes } from '../../shared/labels/requirement.ts';

/** labels.FormatLabels: "a=b,c=d" with keys sorted; "<none>" for an empty set. */
export function formatLabels(set: Readonly<Record<string, string>> | null | undefined): string {
  const keys = Object.keys(set ?? {}).sort(compareBytes);
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${set![k]}`).join(',');
}

/** metav1.FormatLabelSelector: "<none>" when empty or nil, "<error>" when invalid. */
export { formatLabelSelector };

/**
 * LabelSelectorAsSelector(sel).String(), as the Deployment printer uses it:
 * "" for an empty or nil selector, "<invalid>" when it cannot be converted.
 */
export function selectorString(sel: MetaLabelSelector | null | undefined): string {
  try {
    return labelSelectorString(selectorFromLabelSelector(sel));
  } catch {
    return '<invalid>';
  }
}

/** layoutContainerCells: container names and images, each comma-joined. */
export function containerCells(containers: ReadonlyArray<{ name?: string; image?: string }> | null | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}

/** intstr.IntOrString.String(): an int in decimal, a string as is. */
export function intOrString(v: number | string): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : v;
}

/** net.JoinHostPort: brackets around an IPv6 host. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A JSON number as kube's int64/int32 cells carry it (missing means 0). */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** A string field, "" when absent. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Number of keys of a map field (0 when absent). */
export function countKeys(m: unknown): number {
  return m && typeof m === 'object' ? Object.keys(m).length : 0;
}
