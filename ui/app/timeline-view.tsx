/** @jsxImportSource preact */
// The timeline: the SVG of renderChangeTimeline for a window of time, with a
// brush (a slider that moves the window over all the writes kept, or a drag
// across the plot that zooms onto what it covers), zoom buttons, and "follow"
// (the window spans every write and moves with new ones). A click on a mark
// selects its object at that revision. Writes to the resources named in
// "hide" (Leases, by default: every node renews one every 10 s) are left out.
//
// Keeping up with a rollout: while the window stays put, new writes are
// appended to the drawing (appendToTimeline) instead of drawing it anew, so
// a batch costs what it adds, not what is on screen. "follow" therefore
// moves in steps: its window ends well after the newest write, and only a
// write past its end (or a new lane, a zoom, a resize, a selection) draws
// the whole timeline again. Such a redraw shows the newest marks first and
// fills in the older ones beneath them a chunk per task, so that a redraw of
// ten thousand writes does not hold up the page (and the next live batch).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Change } from '../../shared/api/history-types.ts';
import {
  appendToTimeline,
  assembleTimeline,
  describeChange,
  drawTimelineParts,
  timeAtX,
  type TimelineWindow,
} from '../timeline/timeline-svg.ts';
import type { Selection } from './app.tsx';

const LABEL_WIDTH = 200;
const MIN_SPAN = 1000;

/** How much room "follow" leaves after the newest write, as a share of the span of the writes. */
const FOLLOW_HEADROOM = 0.5;

type Range = { from: number; to: number };

/**
 * The window that shows every write: `prev` while every write still fits in
 * it, else a new one with room before the first write and FOLLOW_HEADROOM
 * after the last (so the window is redrawn O(log n) times as writes come).
 */
export function followWindow(changes: readonly Change[], prev: Range | undefined): Range {
  if (!changes.length) {
    const now = Date.now();
    return prev ?? { from: now - 60_000, to: now };
  }
  const first = Date.parse(changes[0].time);
  const last = Date.parse(changes[changes.length - 1].time);
  if (prev && first >= prev.from && last <= prev.to) return prev;
  const span = Math.max(last - first, 10_000);
  return { from: first - span * 0.03, to: last + span * FOLLOW_HEADROOM };
}

/** What is on screen: for which window and lanes, and the newest write drawn. */
interface Drawn {
  key: string;
  lanes: string[];
  last?: Change;
}

const revisionNumber = (c: Change): number => Number(c.revision);

/** The index of the write with `revision` in `changes` (in revision order), or -1. */
export function indexOfRevision(changes: readonly Change[], revision: string): number {
  const r = Number(revision);
  let lo = 0;
  let hi = changes.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = revisionNumber(changes[mid]);
    if (m === r) return mid;
    if (m < r) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The writes of `changes` (in revision order) newer than `last`, the newest
 * write drawn, or undefined when the list no longer holds it (the page's
 * list was cut past it, or began again): then the page draws anew. The list
 * may have lost older writes at its front (the page keeps a bounded number):
 * what is drawn of them stays, as a fresh drawing of a window that still
 * covers their time would not show them, but nothing else moves.
 */
export function writesAfter(changes: readonly Change[], last: Change | undefined): readonly Change[] | undefined {
  if (!last) return changes;
  const i = indexOfRevision(changes, last.revision);
  return i >= 0 && changes[i] === last ? changes.slice(i + 1) : undefined;
}

/** A full redraw shows its newest CHUNK_MARKS marks at once, then older chunks of as many, in tasks of about CHUNK_BUDGET_MS. */
const CHUNK_MARKS = 1000;
const CHUNK_BUDGET_MS = 12;

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

  const follow = useRef<Range | undefined>(undefined);
  const all = useMemo(() => (follow.current = followWindow(changes, follow.current)), [changes]);
  const range = zoom ?? all;
  const win: TimelineWindow = { ...range, width, labelWidth: LABEL_WIDTH, selected: props.selected, titles: false, objectData: false };
  const span = range.to - range.from;
  // The write a mark names (by its data-revision): the list is in revision order.
  const byRevision = (revision: string | undefined): Change | undefined => {
    const i = revision === undefined ? -1 : indexOfRevision(changes, revision);
    return i >= 0 ? changes[i] : undefined;
  };

  // Drawn here, not by Preact: most batches only append (see the file comment). A full redraw
  // shows the newest marks at once and the older ones beneath them in later tasks (each
  // drawing has its generation: a newer drawing stops the filling in of an older one).
  const canvas = useRef<HTMLDivElement>(null);
  const drawn = useRef<Drawn | undefined>(undefined);
  const generation = useRef(0);
  useEffect(() => () => void generation.current++, []);
  useLayoutEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const key = `${win.from}|${win.to}|${win.width}|${win.selected ?? ''}|${hide}`;
    const d = drawn.current;
    const fresh = d && d.key === key ? writesAfter(changes, d.last) : undefined;
    if (d && fresh) {
      const grown = fresh.length ? appendToTimeline(fresh, win, d.lanes, byRevision) : { marks: '', links: '' };
      const marks = el.querySelector('g.marks');
      const links = el.querySelector('g.links');
      if (grown && marks && links && d.lanes.length) {
        if (grown.links) links.insertAdjacentHTML('beforeend', grown.links);
        if (grown.marks) marks.insertAdjacentHTML('beforeend', grown.marks);
        drawn.current = { ...d, last: changes[changes.length - 1] ?? d.last };
        return;
      }
    }
    const parts = drawTimelineParts(changes, win);
    const chunks = parts.chunks(CHUNK_MARKS)[Symbol.iterator]();
    const newest = chunks.next();
    el.innerHTML = assembleTimeline(parts.frame, newest.done ? [] : [newest.value]);
    drawn.current = { key, lanes: parts.lanes, last: changes[changes.length - 1] };
    const mine = ++generation.current;
    const fillIn = () => {
      const marks = el.querySelector('g.marks');
      const links = el.querySelector('g.links');
      if (generation.current !== mine || !marks || !links) return;
      const started = performance.now();
      while (performance.now() - started < CHUNK_BUDGET_MS) {
        const older = chunks.next();
        if (older.done) return;
        links.insertAdjacentHTML('afterbegin', older.value.links);
        marks.insertAdjacentHTML('afterbegin', older.value.marks);
      }
      setTimeout(fillIn, 0);
    };
    if (!newest.done) setTimeout(fillIn, 0);
  }, [changes, win.from, win.to, win.width, win.selected, hide]);

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
  const onOver = (ev: MouseEvent) => {
    const mark = (ev.target as Element).closest<SVGElement>('.mark');
    if (!mark || mark.querySelector('title')) return;
    const c = byRevision(mark.dataset.revision);
    if (!c) return;
    const count = Number(mark.dataset.count ?? 1);
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = describeChange(c) + (count > 1 ? ` (and ${count - 1} more writes of this lane here)` : '');
    mark.appendChild(title);
  };
  const onClick = (ev: MouseEvent) => {
    // A mark names its write's revision; the write names the object (see objectData).
    const c = byRevision((ev.target as Element).closest<SVGElement>('.mark')?.dataset.revision);
    if (c) props.onSelect({ ref: c.object, revision: c.revision });
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
        <div ref={canvas} />
        {drag && <div class="drag" style={{ left: Math.min(drag.x0, drag.x1), width: Math.abs(drag.x1 - drag.x0) }} />}
      </div>
    </div>
  );
}
