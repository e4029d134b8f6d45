/** @jsxImportSource preact */
// A scheduler decision (scheduler/explain.ts: what the scheduler stores in a
// Pod's ksim.io/scheduling-decision annotation and notes at its step-through
// gate) as tables: the outcome, each scored node with its total and each
// plugin's score (the chosen node first), and each rejected node with the
// filter plugin that rejected it and why, then the rejection reasons counted.
import type { Decision } from '../../scheduler/explain.ts';

/** Whether `v` looks like a decision document (a note may be anything). */
export function isDecision(v: unknown): v is Decision {
  const d = v as Partial<Decision> | null;
  return !!d && typeof d === 'object' && (d.result === 'Scheduled' || d.result === 'Unschedulable') && typeof d.nodes === 'number';
}

const score = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** See the file comment. */
export function DecisionTable(props: { decision: Decision }) {
  const d = props.decision;
  const scores = [...(d.scores ?? [])].sort((a, b) => (a.node === d.node ? -1 : b.node === d.node ? 1 : b.total - a.total));
  const plugins = [...new Set(scores.flatMap((s) => Object.keys(s.plugins)))].sort();
  const rejected = Object.entries(d.rejected ?? {});
  const named = rejected.length;
  const rejectedTotal = Object.values(d.reasons ?? {}).length ? d.nodes - d.feasible : named;
  return (
    <div class="decision" data-result={d.result}>
      <p class="outcome">
        <strong>{d.result === 'Scheduled' ? `Scheduled on ${d.node}` : 'Unschedulable'}</strong>: {d.feasible} of {d.nodes} nodes feasible,{' '}
        {d.evaluated} evaluated (profile {d.profile}){d.preemption ? `; preemption: ${d.preemption}` : ''}
      </p>
      {scores.length > 0 && (
        <table class="scores">
          <thead>
            <tr>
              <th>node</th>
              <th>total</th>
              {plugins.map((p) => (
                <th key={p}>{p}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {scores.map((s) => (
              <tr key={s.node} class={s.node === d.node ? 'chosen' : ''} data-node={s.node}>
                <td>{s.node}</td>
                <td>{score(s.total)}</td>
                {plugins.map((p) => (
                  <td key={p}>{s.plugins[p] === undefined ? '' : score(s.plugins[p])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {named > 0 && (
        <table class="rejected">
          <thead>
            <tr>
              <th>rejected node</th>
              <th>filter: reason</th>
            </tr>
          </thead>
          <tbody>
            {rejected.map(([node, why]) => (
              <tr key={node} data-node={node}>
                <td>{node}</td>
                <td>{why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.reasons && rejectedTotal > named && (
        <p class="hint">
          {rejectedTotal} nodes rejected in all:{' '}
          {Object.entries(d.reasons)
            .map(([reason, n]) => `${n} ${reason}`)
            .join(', ')}
        </p>
      )}
    </div>
  );
}
