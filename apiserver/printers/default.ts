// kube's default table (rest.DefaultTableConvertor) for kinds without a
// printer, e.g. Role, ClusterRole and LimitRange: Name and Created At, the
// creation time as an RFC 3339 date rather than an age.
import { parseTime } from './duration.ts';
import { column, nameColumn } from './types.ts';
import type { PrintableObject, PrintedRow, Printer } from './types.ts';

/** Go's time.RFC3339 in UTC: second precision, "Z" suffix; the zero time for a missing timestamp. */
function rfc3339(ts: unknown): string {
  const t = parseTime(ts);
  if (t === undefined) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** rest.DefaultTableConvertor: Name and Created At. */
export const defaultPrinter: Printer = {
  columns: [nameColumn(), column('Created At', 'date', 'When the object was created (metadata.creationTimestamp).')],
  row(obj: PrintableObject | null | undefined): PrintedRow {
    return { cells: [obj?.metadata?.name ?? '', rfc3339(obj?.metadata?.creationTimestamp)] };
  },
};
