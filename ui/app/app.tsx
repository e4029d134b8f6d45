/** @jsxImportSource preact */
// The page: a header, the timeline across the top, and below it the graph and,
// beside it, one of the panels (the selected object, the step-through of the
// controllers and scheduler, the Events, the recent requests' paths). It holds what the views share: the
// changes from /live, the namespace the graph shows, and the selected object.
import { useEffect, useState } from 'preact/hooks';
import type { Change, ObjectRef } from '../../shared/api/history-types.ts';
import { mergeChanges } from './changes.ts';
import { GraphView } from './graph-view.tsx';
import { connectLive, type LiveState } from './live.ts';
import { EventsView } from './events-view.tsx';
import { ObjectView } from './object-view.tsx';
import { RecentRequests, RequestView } from './request-view.tsx';
import { StepView } from './step-view.tsx';
import { TimelineView } from './timeline-view.tsx';

/** How long a write waits in the page before it is drawn: at least FLUSH_MS, at most MAX_FLUSH_MS (see the flush below). */
const FLUSH_MS = 50;
const MAX_FLUSH_MS = 2000;

/** What the object view shows: an object, and the revision to start from. */
export interface Selection {
  ref: ObjectRef;
  revision?: string;
}

/** The panels beside the graph, by the name on their tab. */
const PANELS = { object: 'Object', step: 'Step-through', events: 'Events', requests: 'Requests' } as const;
type Panel = keyof typeof PANELS;

/** See the file comment. */
export function App() {
  const [panel, setPanel] = useState<Panel>('object');
  const [request, setRequest] = useState<string | undefined>();
  const [changes, setChanges] = useState<readonly Change[]>([]);
  const [state, setState] = useState<LiveState>('connecting');
  const [namespace, setNamespace] = useState('default');
  const [selection, setSelectionState] = useState<Selection | undefined>();
  // Choosing an object shows it.
  const setSelection = (s: Selection) => {
    setSelectionState(s);
    setPanel('object');
  };
  const [tick, setTick] = useState(0);

  useEffect(() => {
    // Batches arrive many a second during a rollout: they are merged and drawn
    // together, at most every FLUSH_MS, so the page draws each write once, not once per batch.
    // A page that draws slowly (thousands of marks) draws less often, so that it never
    // falls behind the feed: the next draw waits as long as the last one took (drawing
    // at most half the time).
    let buffered: Change[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let drawMs = 0;
    const flush = () => {
      const started = performance.now();
      const items = buffered;
      buffered = [];
      setChanges((prev) => mergeChanges(prev, items));
      setTick((t) => t + 1);
      // The draw happens before the next frame; only then may another batch be drawn.
      requestAnimationFrame(() => {
        drawMs = performance.now() - started;
        timer = undefined;
        if (buffered.length) timer = setTimeout(flush, delay());
      });
    };
    const delay = () => Math.min(MAX_FLUSH_MS, Math.max(FLUSH_MS, drawMs));
    const stop = connectLive((items) => {
      buffered = buffered.concat(items);
      timer ??= setTimeout(flush, delay());
    }, setState);
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, []);

  return (
    <div class="page">
      <header>
        <h1>ksim</h1>
        <span class={`live ${state}`} data-state={state}>
          {state}
        </span>
        <span class="count">{changes.length} writes</span>
        <label>
          namespace{' '}
          <input value={namespace} onChange={(e) => setNamespace((e.target as HTMLInputElement).value.trim() || 'default')} size={14} />
        </label>
      </header>
      <section class="timeline-pane">
        <TimelineView changes={changes} selected={selection?.revision} onSelect={setSelection} />
      </section>
      <div class="lower">
        <section class="graph-pane">
          <GraphView namespace={namespace} tick={tick} onSelect={(ref) => setSelection({ ref })} />
        </section>
        <section class="object-pane">
          <nav class="tabs">
            {(Object.keys(PANELS) as Panel[]).map((p) => (
              <button key={p} class={p === panel ? 'on' : ''} data-panel={p} onClick={() => setPanel(p)}>
                {PANELS[p]}
              </button>
            ))}
          </nav>
          {panel === 'object' &&
            (selection ? (
              <ObjectView selection={selection} />
            ) : (
              <p class="hint">Click a mark on the timeline or a node of the graph to see its history.</p>
            ))}
          {panel === 'step' && <StepView />}
          {panel === 'events' && <EventsView />}
          {panel === 'requests' && (
            <div class="requests">
              <RecentRequests onPick={setRequest} />
              {request && <RequestView auditID={request} />}
            </div>
          )}
        </section>
      </div>
    </div>
  );
}
