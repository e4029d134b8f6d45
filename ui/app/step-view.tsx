/** @jsxImportSource preact */
// Step-through from the page: every controller of the controller-manager and
// the scheduler, running or paused, with the work items held at its gate;
// pause, step one item (then what the reconcile saw and decided: its notes,
// the scheduler's filter and score table) and resume. The same gates as
// `ksim step`, reached through the UI server's /api/step.
import { useEffect, useState } from 'preact/hooks';
import type { ControllerSteps, ItemRecord } from '../../shared/controller/stepper.ts';
import { ApiError, getJson } from './api.ts';
import { DecisionTable, isDecision } from './decision-table.tsx';
import { valueText } from './format.ts';

const POLL_MS = 1000;

async function drive(action: 'pause' | 'next' | 'resume', controller: string): Promise<{ item?: ItemRecord }> {
  const res = await fetch(`/api/step/${action}?controller=${encodeURIComponent(controller)}`, { method: 'POST' });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, (body as { message?: string }).message ?? `HTTP ${res.status}`);
  return body as { item?: ItemRecord };
}

/** One work item: key, state, what queued it, how long it took, and its notes. */
export function ItemCard(props: { item: ItemRecord }) {
  const i = props.item;
  const took = i.startedAt !== undefined && i.endedAt !== undefined ? `${i.endedAt - i.startedAt} ms` : '';
  return (
    <div class={`item ${i.state}`} data-item={i.id} data-key={i.key}>
      <div class="item-head">
        <strong>
          #{i.id} {i.controller} {i.key}
        </strong>{' '}
        <span class="state">{i.state}</span> {took}
        {i.triggers.length > 0 && <span class="hint"> · queued by revision {i.triggers.join(', ')}</span>}
      </div>
      {i.notes.map((n, k) =>
        isDecision(n) ? (
          <DecisionTable key={k} decision={n} />
        ) : (
          <table key={k} class="notes">
            <tbody>
              {Object.entries(n).map(([name, v]) => (
                <tr key={name}>
                  <th>{name}</th>
                  <td>{valueText(v, 300)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ),
      )}
      {i.error && <p class="error">{i.error}</p>}
      {i.requeueAfterMs !== undefined && <p class="hint">requeued after {i.requeueAfterMs} ms</p>}
    </div>
  );
}

/** See the file comment. */
export function StepView() {
  const [steps, setSteps] = useState<ControllerSteps[] | undefined>();
  const [error, setError] = useState('');
  const [chosen, setChosen] = useState<string | undefined>();
  const [stepped, setStepped] = useState<ItemRecord | undefined>();
  const [busy, setBusy] = useState(false);
  const [poll, setPoll] = useState(0);

  useEffect(() => {
    let live = true;
    const read = () =>
      getJson<{ controllers: ControllerSteps[] }>('/api/step').then(
        (b) => {
          if (!live) return;
          setSteps(b.controllers);
          setError('');
        },
        (err: Error) => live && setError(err.message),
      );
    void read();
    const timer = setInterval(() => void read(), POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [poll]);

  const act = async (action: 'pause' | 'next' | 'resume', controller: string) => {
    setBusy(true);
    setChosen(controller);
    try {
      const r = await drive(action, controller);
      if (action === 'next') setStepped(r.item);
      setError('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
      setPoll((p) => p + 1);
    }
  };

  const current = steps?.find((s) => s.controller === chosen);
  return (
    <div class="steps">
      <h2>Step-through</h2>
      {error && <p class="error">{error}</p>}
      {!steps && !error && <p class="hint">loading…</p>}
      {steps && (
        <table class="controllers">
          <thead>
            <tr>
              <th>controller</th>
              <th>state</th>
              <th>held</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {steps.map((s) => (
              <tr key={s.controller} data-controller={s.controller} class={s.controller === chosen ? 'current' : ''}>
                <td>
                  <a href="#" onClick={(e) => (e.preventDefault(), setChosen(s.controller))}>
                    {s.controller}
                  </a>
                </td>
                <td class="state">{s.paused ? 'paused' : 'running'}</td>
                <td class="held">{s.waiting.length}</td>
                <td>
                  {s.paused ? (
                    <button data-action="resume" disabled={busy} onClick={() => void act('resume', s.controller)}>
                      resume
                    </button>
                  ) : (
                    <button data-action="pause" disabled={busy} onClick={() => void act('pause', s.controller)}>
                      pause
                    </button>
                  )}{' '}
                  <button
                    data-action="next"
                    disabled={busy || !s.paused || s.waiting.length === 0}
                    onClick={() => void act('next', s.controller)}
                  >
                    next
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {stepped && (
        <div class="stepped">
          <h3>Last step</h3>
          <ItemCard item={stepped} />
        </div>
      )}
      {current && (
        <div class="gate">
          <h3>{current.controller}</h3>
          {current.waiting.length > 0 && <p class="held-keys">held: {current.waiting.map((w) => w.key).join(', ')}</p>}
          {current.recent.slice(0, 10).map((i) => (
            <ItemCard key={i.id} item={i} />
          ))}
        </div>
      )}
      {!chosen && steps && <p class="hint">Pick a controller to see its last work items; pause it to step one item at a time.</p>}
    </div>
  );
}
