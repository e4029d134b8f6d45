/** @jsxImportSource preact */
// The timeline: the SVG of renderChangeTimeline for a window of time, with a
// brush (a slider that moves the window over all the writes kept, or a drag
// across the plot that zooms onto what it covers), zoom buttons, and "follow"
// (the window spans every write and moves with new ones). A click on a mark
// selects its object at that revision. Writes to the resources named in
// "hide" (Leases, by default: every node renews one every 10 s) are left out.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Change } from '../../shared/api/history-types.ts';
import { describeChange, renderChangeTimeline, timeAtX, type TimelineWindow } from '../timeline/timeline-svg.ts';
import type { Selection } from './app.tsx';

const LABEL_WIDTH = 200;
const MIN_SPAN = 1000;

/** The window that shows every write, with a little room at both ends. */
function fitAll(changes: readonly Change[]): { from: number; to: number } {
  if (!changes.length) {
    const now = Date.now();
    return { from: now - 60_000, to: now };
  }
  const first = Date.parse(changes[0].time);
  const last = Date.parse(changes[changes.length - 1].time);
  const span = Math.max(last - first, 10_000);
  return { from: last - span * 1.03, to: last + span * 0.03 };
}

/** See the file comment. */
export function TimelineView(props: { changes: readonly Change[]; selected?: string; onSelect: (s: Selection) => void }) {
  const [hide, setHide] = useState('leases');
  const changes = useMemo(() => {
    const hidden = new Set(hide.split(/[\s,]+/).filter(Boolean));
    return hidden.size ? props.changes.filter((c) => !hidden.has(c.object.resource)) : props.changes;
  }, [props.changes, hide]);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(1000);
  const [zoom, setZoom] = useState<{ from: number; to: number } | undefined>();
  const [drag, setDrag] = useState<{ x0: number; x1: number } | undefined>();

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(el.clientWidth, 400)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const all = useMemo(() => fitAll(changes), [changes]);
  const range = zoom ?? all;
  const win: TimelineWindow = { ...range, width, labelWidth: LABEL_WIDTH, selected: props.selected, titles: false };
  const svg = useMemo(() => renderChangeTimeline(changes, win), [changes, range.from, range.to, width, props.selected]);
  const span = range.to - range.from;

  const zoomBy = (factor: number) => {
    const mid = (range.from + range.to) / 2;
    const half = Math.max((span * factor) / 2, MIN_SPAN / 2);
    setZoom({ from: mid - half, to: mid + half });
  };
  const moveTo = (mid: number) => setZoom({ from: mid - span / 2, to: mid + span / 2 });

  const localX = (ev: MouseEvent) => ev.clientX - box.current!.getBoundingClientRect().left;
  const onDown = (ev: MouseEvent) => {
    if ((ev.target as Element).closest('.mark') || localX(ev) < LABEL_WIDTH) return;
    setDrag({ x0: localX(ev), x1: localX(ev) });
  };
  const onMove = (ev: MouseEvent) => drag && setDrag({ ...drag, x1: localX(ev) });
  const onUp = () => {
    if (!drag) return;
    setDrag(undefined);
    if (Math.abs(drag.x1 - drag.x0) < 5) return;
    const a = timeAtX(win, Math.min(drag.x0, drag.x1));
    const b = timeAtX(win, Math.max(drag.x0, drag.x1));
    setZoom({ from: a, to: Math.max(b, a + MIN_SPAN) });
  };
  // Each mark's hover text is added when the pointer first reaches it (the SVG carries none: see `titles`).
  const byRevision = useMemo(() => new Map(changes.map((c) => [c.revision, c])), [changes]);
  const onOver = (ev: MouseEvent) => {
    const mark = (ev.target as Element).closest<SVGElement>('.mark');
    if (!mark || mark.querySelector('title')) return;
    const c = byRevision.get(mark.dataset.revision ?? '');
    if (!c) return;
    const count = Number(mark.dataset.count ?? 1);
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = describeChange(c) + (count > 1 ? ` (and ${count - 1} more writes of this lane here)` : '');
    mark.appendChild(title);
  };
  const onClick = (ev: MouseEvent) => {
    const mark = (ev.target as Element).closest<SVGElement>('.mark');
    if (!mark) return;
    const d = mark.dataset;
    props.onSelect({
      ref: {
        group: d.group ?? '',
        resource: d.resource ?? '',
        kind: d.kind || undefined,
        namespace: d.namespace || undefined,
        name: d.name ?? '',
      },
      revision: d.revision,
    });
  };

  return (
    <div class="timeline">
      <div class="toolbar">
        <strong>Timeline</strong>
        <button onClick={() => zoomBy(0.5)} title="zoom in">
          +
        </button>
        <button onClick={() => zoomBy(2)} title="zoom out">
          −
        </button>
        <button class={zoom ? '' : 'on'} onClick={() => setZoom(undefined)} title="show every write and follow new ones">
          follow
        </button>
        <input
          type="range"
          class="brush"
          aria-label="move the window"
          min={all.from}
          max={all.to}
          step={Math.max(Math.round(span / 100), 1)}
          value={(range.from + range.to) / 2}
          onInput={(e) => moveTo(Number((e.target as HTMLInputElement).value))}
        />
        <label title="resources whose writes are not drawn (node and leader Lease renewals are many)">
          hide <input value={hide} size={12} onChange={(e) => setHide((e.target as HTMLInputElement).value)} />
        </label>
        <span class="span">{(span / 1000).toFixed(span < 10_000 ? 1 : 0)} s shown · drag across the plot to zoom</span>
      </div>
      <div
        class="plot"
        ref={box}
        onMouseDown={onDown}
        onMouseMove={onMove}
        onMouseUp={onUp}
        onMouseLeave={onUp}
        onMouseOver={onOver}
        onClick={onClick}
      >
        <div dangerouslySetInnerHTML={{ __html: svg }} />
        {drag && <div class="drag" style={{ left: Math.min(drag.x0, drag.x1), width: Math.abs(drag.x1 - drag.x0) }} />}
      </div>
    </div>
  );
}
