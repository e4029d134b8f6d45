// `ksim chaos list`: the faults in effect as a table (ID, ACTION, TARGET,
// AGE, RECOVERS, MESSAGE), the times as kubectl words them (45s, 3m20s).
import { humanDuration } from '../../apiserver/printers/duration.ts';
import type { ActiveFault, ChaosRequest } from '../../shared/chaos/protocol.ts';
import { formatColumns } from '../../shared/cli/columns.ts';

/** What a request names, for the TARGET column. */
function targetOf(r: ChaosRequest): string {
  if (r.target) return r.target;
  if (r.pods) {
    const ns = r.pods.allNamespaces ? '-A' : `-n ${r.pods.namespace ?? 'default'}`;
    return `pods ${ns}${r.pods.labelSelector ? ` -l ${r.pods.labelSelector}` : ''}`;
  }
  return r.action === 'apiserver' ? 'apiserver' : '';
}

/** The table's lines; "No active faults." when there are none. */
export function faultTable(faults: ActiveFault[], now: number): string {
  if (faults.length === 0) return 'No active faults.\n';
  const rows = [['ID', 'ACTION', 'TARGET', 'AGE', 'RECOVERS', 'MESSAGE']];
  for (const f of faults) {
    const recovers = f.recoversAt ? `in ${humanDuration(Date.parse(f.recoversAt) - now)}` : 'when recovered';
    rows.push([f.id, f.request.action, targetOf(f.request), humanDuration(now - Date.parse(f.injectedAt)), recovers, f.message]);
  }
  return formatColumns(rows);
}
