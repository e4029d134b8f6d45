/** @jsxImportSource preact */
// One object's history: its revisions (who wrote each, with what verb and
// why), a diff between any two of them (pick "from" and "to" in the list),
// the field blame as of "to", and the object itself at "to" on demand. For a
// Pod, the scheduler's decision as of "to": the filter and score table it
// stored in the ksim.io/scheduling-decision annotation.
import { useEffect, useState } from 'preact/hooks';
import type { Decision } from '../../scheduler/explain.ts';
import { DECISION_ANNOTATION } from '../../scheduler/explain.ts';
import type { FieldBlame, Revision, RevisionDiff, RevisionList } from '../../shared/api/history-types.ts';
import { fetchBlame, fetchDiff, fetchObjectAt, fetchRevisions } from './api.ts';
import type { Selection } from './app.tsx';
import { BlameTable } from './blame-table.tsx';
import { DecisionTable, isDecision } from './decision-table.tsx';
import { DiffTable } from './diff-table.tsx';
import { writerText, writerTitle } from './format.ts';

/** See the file comment. */
export function ObjectView(props: { selection: Selection }) {
  const { ref, revision } = props.selection;
  const [list, setList] = useState<RevisionList | undefined>();
  const [error, setError] = useState('');
  const [from, setFrom] = useState<string | undefined>();
  const [to, setTo] = useState<string | undefined>();
  const [diff, setDiff] = useState<RevisionDiff | undefined>();
  const [blame, setBlame] = useState<FieldBlame | undefined>();
  const [object, setObject] = useState<unknown>();
  const [showObject, setShowObject] = useState(false);
  const [decision, setDecision] = useState<Decision | undefined>();
  const key = `${ref.group}/${ref.resource}/${ref.namespace ?? ''}/${ref.name}`;

  useEffect(() => {
    let live = true;
    setList(undefined);
    setError('');
    setDiff(undefined);
    setBlame(undefined);
    fetchRevisions(ref).then(
      (l) => {
        if (!live) return;
        setList(l);
        const items = l.items;
        const i = revision ? items.findIndex((r) => r.revision === revision) : items.length - 1;
        const at = i < 0 ? items.length - 1 : i;
        setTo(items[at]?.revision);
        setFrom(items[Math.max(at - 1, 0)]?.revision);
      },
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [key, revision]);

  useEffect(() => {
    if (!to) return;
    let live = true;
    setDiff(undefined);
    if (from && from !== to)
      fetchDiff(ref, from, to).then(
        (d) => live && setDiff(d),
        (err: Error) => live && setError(err.message),
      );
    fetchBlame(ref, to).then(
      (b) => live && setBlame(b),
      () => live && setBlame(undefined),
    );
    if (showObject)
      fetchObjectAt(ref, to).then(
        (o) => live && setObject(o),
        () => live && setObject(undefined),
      );
    return () => {
      live = false;
    };
  }, [key, from, to, showObject]);

  useEffect(() => {
    setDecision(undefined);
    if (!to || ref.group !== '' || ref.resource !== 'pods') return;
    let live = true;
    fetchObjectAt(ref, to).then(
      (o) => live && setDecision(decisionOf(o)),
      () => live && setDecision(undefined),
    );
    return () => {
      live = false;
    };
  }, [key, to]);

  const title = `${ref.kind ?? ref.resource} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
  return (
    <div class="object">
      <h2>{title}</h2>
      {error && <p class="error">{error}</p>}
      {!list && !error && <p class="hint">loading…</p>}
      {list && (
        <table class="revisions">
          <thead>
            <tr>
              <th title="diff from">from</th>
              <th title="diff to">to</th>
              <th>revision</th>
              <th>time</th>
              <th>type</th>
              <th>writer</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((r: Revision) => (
              <tr key={r.revision} class={r.revision === to ? 'current' : ''} data-revision={r.revision}>
                <td>
                  <input
                    type="radio"
                    name="from"
                    aria-label={`diff from ${r.revision}`}
                    checked={r.revision === from}
                    onChange={() => setFrom(r.revision)}
                  />
                </td>
                <td>
                  <input
                    type="radio"
                    name="to"
                    aria-label={`diff to ${r.revision}`}
                    checked={r.revision === to}
                    onChange={() => setTo(r.revision)}
                  />
                </td>
                <td>{r.revision}</td>
                <td>{r.time.slice(11, 23)}</td>
                <td>{r.type}</td>
                <td title={writerTitle(r.writer)}>{writerText(r.writer)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {from && to && from !== to && (
        <div class="diff">
          <h3>
            Changes from {from} to {to}
          </h3>
          {diff ? <DiffTable diff={diff} /> : <p class="hint">loading…</p>}
        </div>
      )}
      {decision && (
        <details class="scheduling" open>
          <summary>Scheduler decision</summary>
          <DecisionTable decision={decision} />
        </details>
      )}
      {blame && (
        <details class="blame" open>
          <summary>Field blame at {blame.revision}</summary>
          <BlameTable blame={blame} />
        </details>
      )}
      <details class="at" open={showObject} onToggle={(e) => setShowObject((e.target as HTMLDetailsElement).open)}>
        <summary>The object at {to}</summary>
        {showObject && <pre>{object === undefined ? 'loading…' : JSON.stringify(object, null, 2)}</pre>}
      </details>
    </div>
  );
}

/** The scheduler's decision stored on a Pod, when it has a readable one. */
function decisionOf(pod: unknown): Decision | undefined {
  const text = (pod as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata?.annotations?.[DECISION_ANNOTATION];
  if (!text) return undefined;
  try {
    const d: unknown = JSON.parse(text);
    return isDecision(d) ? d : undefined;
  } catch {
    return undefined;
  }
}
