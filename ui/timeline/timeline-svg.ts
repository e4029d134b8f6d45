// Draws the cluster's writes as one SVG string: a pure function of the
// changes and the time window (no clock, no DOM), so the web UI and the chaos
// report draw the same picture and a test can read it as text. One lane per
// writer (lanes.ts); each write is a mark whose <title> says what it was
// (time, verb, object, writer, cause); a line joins a write to the write that
// caused it (its cause's trigger revision) when both are in the window.
// Marks carry data-* attributes naming the object and revision, for a page
// that wants to open the object when one is clicked. Chaos faults (the
// ksim-chaos Events) are red marks when injected and green when recovered,
// with a red band in the chaos lane while a fault lasts.
import type { Change } from '../../shared/api/history-types.ts';
import { escapeXml, tickStep } from '../../shared/timeline/svg.ts';
import { CHAOS_CONTROLLER, laneOf, lanesOf, type Lane, type LaneKind } from './lanes.ts';

/** The window to draw and how. Times are milliseconds since the epoch. */
export interface TimelineWindow {
  from: number;
  to: number;
  /** Total width in pixels. */
  width: number;
  /** Width of the lane labels on the left (default 200). */
  labelWidth?: number;
  /** Height of one lane (default 22). */
  laneHeight?: number;
  /** The revision to draw as selected. */
  selected?: string;
  /**
   * Hover text in each mark (`<title>`, the default: the SVG stands alone, as
   * in a report). A page that adds the text when the pointer reaches a mark
   * passes false: ten thousand titles are half of a rollout's SVG.
   */
  titles?: boolean;
  /**
   * data-* attributes naming each mark's object (the default). A page that
   * keeps the changes finds a clicked mark's object by its data-revision and
   * passes false: half of a mark's attributes, parsed and styled for nothing.
   */
  objectData?: boolean;
}

const COLORS: Record<LaneKind, string> = {
  chaos: '#dc2626',
  user: '#2563eb',
  apiserver: '#6b7280',
  controller: '#d97706',
  scheduler: '#7c3aed',
  kubelet: '#059669',
  other: '#6b7280',
};
const AXIS = 24;
const RIGHT = 12;

/**
 * Each write's time and lane, worked out once: a page draws the same writes
 * again whenever its window moves. (A Change is never changed once made, so
 * this is still a pure function of the changes.)
 */
const facts = new WeakMap<Change, { t: number; lane: Lane }>();
function factsOf(c: Change): { t: number; lane: Lane } {
  let f = facts.get(c);
  if (!f) facts.set(c, (f = { t: Date.parse(c.time), lane: laneOf(c) }));
  return f;
}
const timeOf = (c: Change): number => factsOf(c).t;
const cachedLaneOf = (c: Change): Lane => factsOf(c).lane;

const n = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** "Pod default/web-1" (the kind when known, else the resource). */
export function objectLabel(c: Pick<Change, 'object'>): string {
  const o = c.object;
  const what = o.kind ?? (o.group ? `${o.resource}.${o.group}` : o.resource);
  return `${what} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** The hover text of one mark: time, verb, object, revision, writer and cause. */
export function describeChange(c: Change): string {
  const w = c.writer;
  const verb = w ? `${w.verb}${w.subresource ? `/${w.subresource}` : ''}` : c.type.toLowerCase();
  let s = `${c.time} ${verb} ${objectLabel(c)} (revision ${c.revision}, ${c.type})`;
  // Seen live: how long the durable write took (a slow disk, or a busy apiserver, shows here).
  if (c.committed) s += `, committed ${Date.parse(c.committed) - Date.parse(c.time)} ms later`;
  if (w) s += `\nby ${w.user}${w.fieldManager ? ` as ${w.fieldManager}` : ''}${w.userAgent ? ` (${w.userAgent})` : ''}`;
  if (w?.requestID) s += `\nrequest ${w.requestID}`;
  const cause = w?.cause;
  if (cause) {
    s += `\ncause: ${cause.controller}${cause.key ? ` reconciling ${cause.key}` : ''}`;
    if (cause.triggers?.length) s += `, triggered by revision ${cause.triggers.join(', ')}`;
    if (cause.detail) s += `; ${cause.detail}`;
  }
  return s;
}

const RECOVERED = '#16a34a';

/** A fault's Event: ChaosInjected or ChaosRecovered, from the write's cause detail ("REASON: message"). */
const faultReason = (c: Change): string | undefined =>
  c.writer?.cause?.controller === CHAOS_CONTROLLER ? c.writer.cause.detail?.split(':', 1)[0] : undefined;

/** The object a chaos Event is about: its name without the recorder's ".<hex>" suffix. */
const faultTarget = (c: Change): string => `${c.object.namespace ?? ''}/${c.object.name.replace(/\.[0-9a-f]+$/, '')}`;

/** One fault as it lasted: from its injection to its recovery (undefined: still on). */
export interface FaultSpan {
  target: string;
  from: number;
  to?: number;
  revision: string;
  detail: string;
}

/** The faults of `changes` (in revision order): each injection paired with the next recovery of the same object. */
export function faultSpans(changes: readonly Change[]): FaultSpan[] {
  const spans: FaultSpan[] = [];
  const open = new Map<string, FaultSpan>();
  for (const c of changes) {
    const reason = faultReason(c);
    if (!reason || c.type === 'DELETED') continue;
    const target = faultTarget(c);
    const t = Date.parse(c.time);
    if (reason === 'ChaosInjected' && !open.has(target)) {
      const span: FaultSpan = { target, from: t, revision: c.revision, detail: c.writer!.cause!.detail ?? '' };
      open.set(target, span);
      spans.push(span);
    } else if (reason === 'ChaosRecovered') {
      const span = open.get(target);
      if (span) span.to = t;
      open.delete(target);
    }
  }
  return spans;
}

/** Writes of one lane closer than this many pixels share a mark. */
const CELL_PX = 3;

function axisLabel(t: number, step: number): string {
  const iso = new Date(t).toISOString();
  return step < 1000 ? iso.slice(11, 23) : iso.slice(11, 19);
}

/** Where a timeline drawn with `win` puts things: the plot's x of a time, the y of a lane. */
interface Layout {
  labelWidth: number;
  laneHeight: number;
  width: number;
  height: number;
  xOf: (t: number) => number;
  laneIndex: Map<string, number>;
}

function layoutOf(win: TimelineWindow, laneLabels: readonly string[]): Layout {
  const labelWidth = win.labelWidth ?? 200;
  const laneHeight = win.laneHeight ?? 22;
  const width = Math.max(win.width, labelWidth + 100);
  const plotWidth = width - labelWidth - RIGHT;
  const span = Math.max(win.to - win.from, 1);
  return {
    labelWidth,
    laneHeight,
    width,
    height: AXIS + Math.max(laneLabels.length, 1) * laneHeight + 8,
    xOf: (t) => labelWidth + ((t - win.from) / span) * plotWidth,
    laneIndex: new Map(laneLabels.map((l, i) => [l, i])),
  };
}

/** One mark: a circle (a red square for a delete) with the data-* attributes a page reads. */
function markSvg(c: Change, x: number, y: number, count: number, win: TimelineWindow): string {
  const lane = cachedLaneOf(c);
  const color = lane.kind === 'chaos' && faultReason(c) === 'ChaosRecovered' ? RECOVERED : COLORS[lane.kind];
  const o = c.object;
  const object =
    win.objectData === false
      ? ''
      : ` data-group="${escapeXml(o.group)}" data-resource="${escapeXml(o.resource)}" data-kind="${escapeXml(o.kind ?? '')}"` +
        ` data-namespace="${escapeXml(o.namespace ?? '')}" data-name="${escapeXml(o.name)}"`;
  const data =
    `class="mark${c.revision === win.selected ? ' selected' : ''}" data-revision="${escapeXml(c.revision)}" data-lane="${escapeXml(lane.label)}"` +
    `${object}${count > 1 ? ` data-count="${count}"` : ''}`;
  const selected = c.revision === win.selected;
  const more = count > 1 ? ` (and ${count - 1} more writes of this lane here)` : '';
  const title = win.titles === false ? '' : `<title>${escapeXml(describeChange(c) + more)}</title>`;
  if (c.type === 'DELETED')
    return `<rect ${data} x="${n(x - 4)}" y="${n(y - 4)}" width="8" height="8" fill="#dc2626"${selected ? ' stroke="#111827" stroke-width="2"' : ''}>${title}</rect>`;
  return `<circle ${data} cx="${n(x)}" cy="${n(y)}" r="${selected ? 6 : 4.5}" fill="${c.type === 'ADDED' ? color : '#fff'}" stroke="${selected ? '#111827' : color}" stroke-width="2">${title}</circle>`;
}

const linkSvg = (from: string, to: string, a: { x: number; y: number }, b: { x: number; y: number }): string =>
  `<line class="link" data-from="${escapeXml(from)}" data-to="${escapeXml(to)}" x1="${n(a.x)}" y1="${n(a.y)}" x2="${n(b.x)}" y2="${n(b.y)}" stroke="#9ca3af" stroke-width="1"/>`;

/** A drawn timeline: the SVG, and the lanes it has (in order), which an append must keep. */
export interface DrawnTimeline {
  svg: string;
  lanes: string[];
}

/** Some of a timeline's marks and links, as SVG text for its `g.marks` and `g.links`. */
export interface TimelineChunk {
  marks: string;
  links: string;
}

/**
 * A timeline laid out but not yet written: its frame (axis, lanes, fault
 * bands) and its marks and links, written a chunk at a time, newest first.
 * The drawing is `frame`, then `<g class="links">` with every chunk's links,
 * then `<g class="marks">` with every chunk's marks (oldest first), then
 * `</svg>`: a page can show the newest writes at once and put the older ones
 * beneath them in later tasks (each older chunk goes before the ones already
 * there), so that a redraw of ten thousand writes never holds the page.
 */
export interface TimelineParts {
  lanes: string[];
  frame: string;
  /** The marks and links of up to `size` marks at a time, newest first. */
  chunks(size: number): Iterable<TimelineChunk>;
}

/** The timeline SVG of the `changes` whose time is in [from, to]. */
export function renderChangeTimeline(changes: readonly Change[], win: TimelineWindow): string {
  return drawChangeTimeline(changes, win).svg;
}

/**
 * renderChangeTimeline, with the lanes drawn. The marks are in `<g
 * class="marks">` and the links in `<g class="links">` (beneath), so that a
 * page can append later writes to them (appendToTimeline).
 */
export function drawChangeTimeline(changes: readonly Change[], win: TimelineWindow): DrawnTimeline {
  const parts = drawTimelineParts(changes, win);
  const chunks = [...parts.chunks(Number.MAX_SAFE_INTEGER)].reverse();
  return { svg: assembleTimeline(parts.frame, chunks), lanes: parts.lanes };
}

/** The whole SVG from a frame and its chunks, oldest first. */
export function assembleTimeline(frame: string, oldestFirst: readonly TimelineChunk[]): string {
  const links = oldestFirst.map((c) => c.links).join('');
  const marks = oldestFirst.map((c) => c.marks).join('');
  return `${frame}<g class="links">${links}</g><g class="marks">${marks}</g></svg>`;
}

/** A mark standing for the writes of one lane on the same couple of pixels: the newest of them, and how many. */
interface Cell {
  newest: Change;
  x: number;
  y: number;
  count: number;
}

/** A line from a write to the write that caused it, drawn in the chunk of the mark it ends at. */
interface Link {
  from: string;
  to: string;
  a: { x: number; y: number };
  b: { x: number; y: number };
  cell: number;
}

/** See TimelineParts. */
export function drawTimelineParts(changes: readonly Change[], win: TimelineWindow): TimelineParts {
  const visible = changes.filter((c) => {
    const t = timeOf(c);
    return t >= win.from && t <= win.to;
  });
  const lanes = lanesOf(visible, cachedLaneOf);
  const L = layoutOf(
    win,
    lanes.map((l) => l.label),
  );
  const { labelWidth, laneHeight, width, height, xOf, laneIndex } = L;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="ksim-timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
  ];

  lanes.forEach((_lane, i) => {
    const y = AXIS + i * laneHeight;
    if (i % 2 === 0) out.push(`<rect x="0" y="${y}" width="${width}" height="${laneHeight}" fill="#f9fafb"/>`);
  });
  const span = Math.max(win.to - win.from, 1);
  const step = tickStep(span);
  for (let t = Math.ceil(win.from / step) * step; t <= win.to; t += step) {
    const x = n(xOf(t));
    out.push(`<line x1="${x}" y1="${AXIS - 4}" x2="${x}" y2="${height}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${x}" y="${AXIS - 8}" text-anchor="middle" fill="#6b7280">${axisLabel(t, step)}</text>`);
  }
  lanes.forEach((lane, i) => {
    const y = AXIS + i * laneHeight;
    const label = lane.label.length > labelWidth / 6.5 ? `${lane.label.slice(0, Math.floor(labelWidth / 6.5) - 1)}…` : lane.label;
    out.push(
      `<text class="lane" data-lane="${escapeXml(lane.label)}" x="6" y="${y + laneHeight / 2 + 4}" fill="#1f2933"><title>${escapeXml(lane.label)}</title>${escapeXml(label)}</text>`,
    );
  });
  const chaosLane = laneIndex.get('chaos');
  if (chaosLane !== undefined)
    for (const f of faultSpans(changes)) {
      if (f.from > win.to || (f.to ?? win.to) < win.from) continue;
      const x1 = xOf(Math.max(f.from, win.from));
      const x2 = xOf(Math.min(f.to ?? win.to, win.to));
      out.push(
        `<rect class="fault" data-revision="${escapeXml(f.revision)}" data-target="${escapeXml(f.target)}"${f.to === undefined ? ' data-ongoing="true"' : ''} x="${n(x1)}" y="${AXIS + chaosLane * laneHeight + 3}" width="${n(Math.max(x2 - x1, 2))}" height="${laneHeight - 6}" fill="#dc2626" fill-opacity="0.15"><title>${escapeXml(`${f.detail}${f.to === undefined ? ' (not recovered yet)' : ` (${f.to - f.from} ms)`}`)}</title></rect>`,
      );
    }
  if (!lanes.length) out.push(`<text x="${labelWidth}" y="${AXIS + 15}" fill="#6b7280">no writes in this window</text>`);

  // Writes of one lane that fall on the same couple of pixels would be drawn on top of one
  // another: one mark stands for them all (the newest; its title counts the others), and one
  // line for the links between two such marks. A rollout's ten thousand writes stay a page
  // the browser can draw several times a second.
  const at = new Map<string, { x: number; y: number; cell: number }>();
  const cells: Cell[] = [];
  const cellOfKey = new Map<string, number>();
  for (const c of visible) {
    const lane = cachedLaneOf(c);
    const x = xOf(timeOf(c));
    const y = AXIS + laneIndex.get(lane.label)! * laneHeight + laneHeight / 2;
    const key = `${lane.label}\u0000${Math.round(x / CELL_PX)}\u0000${c.type}`;
    const i = cellOfKey.get(key);
    const had = i === undefined ? undefined : cells[i];
    // The selected write always keeps its own mark.
    if (had && c.revision !== win.selected && had.newest.revision !== win.selected) {
      had.newest = c;
      had.x = x;
      had.count++;
      at.set(c.revision, { x, y, cell: i! });
    } else {
      const cell = cells.push({ newest: c, x, y, count: 1 }) - 1;
      if (!had) cellOfKey.set(key, cell);
      at.set(c.revision, { x, y, cell });
    }
  }
  const links: Link[] = [];
  const linked = new Set<string>();
  for (const c of visible) {
    const to = at.get(c.revision)!;
    for (const trigger of c.writer?.cause?.triggers ?? []) {
      const from = at.get(trigger);
      if (!from || trigger === c.revision) continue;
      const pair = `${from.cell}\u0001${to.cell}`;
      if (linked.has(pair)) continue;
      linked.add(pair);
      links.push({ from: trigger, to: c.revision, a: from, b: to, cell: to.cell });
    }
  }
  // Each chunk's links are those ending at its marks.
  links.sort((p, q) => p.cell - q.cell);

  function* chunks(size: number): Iterable<TimelineChunk> {
    let link = links.length;
    for (let hi = cells.length; hi > 0; hi -= size) {
      const lo = Math.max(hi - size, 0);
      const marks: string[] = [];
      for (let i = lo; i < hi; i++) marks.push(markSvg(cells[i].newest, cells[i].x, cells[i].y, cells[i].count, win));
      const end = link;
      while (link > 0 && links[link - 1].cell >= lo) link--;
      const lines: string[] = [];
      for (let i = link; i < end; i++) lines.push(linkSvg(links[i].from, links[i].to, links[i].a, links[i].b));
      yield { marks: marks.join(''), links: lines.join('') };
    }
  }
  return { lanes: lanes.map((l) => l.label), frame: out.join(''), chunks };
}

/**
 * The marks and links of `fresh` writes (newer than every write already
 * drawn) for a timeline drawn with `win` and `lanes`: one mark per write, and
 * a link to each trigger that `earlier` finds in the window. Undefined when
 * the drawing cannot simply grow: a write outside the window, a lane not
 * drawn, or a chaos write (its band would change). Then the page draws anew.
 */
export function appendToTimeline(
  fresh: readonly Change[],
  win: TimelineWindow,
  lanes: readonly string[],
  earlier: (revision: string) => Change | undefined,
): { marks: string; links: string } | undefined {
  const L = layoutOf(win, lanes);
  const pos = (c: Change) => {
    const t = timeOf(c);
    const i = L.laneIndex.get(cachedLaneOf(c).label);
    if (t < win.from || t > win.to || i === undefined) return undefined;
    return { x: L.xOf(t), y: AXIS + i * L.laneHeight + L.laneHeight / 2 };
  };
  const byRevision = new Map(fresh.map((c) => [c.revision, c]));
  const marks: string[] = [];
  const links: string[] = [];
  for (const c of fresh) {
    const p = pos(c);
    if (!p || faultReason(c)) return undefined;
    marks.push(markSvg(c, p.x, p.y, 1, win));
    for (const trigger of c.writer?.cause?.triggers ?? []) {
      const cause = byRevision.get(trigger) ?? earlier(trigger);
      const from = cause && trigger !== c.revision ? pos(cause) : undefined;
      if (from) links.push(linkSvg(trigger, c.revision, from, p));
    }
  }
  return { marks: marks.join(''), links: links.join('') };
}

/** The time at horizontal position `x` of a timeline drawn with `win` (for a page turning a drag into a window). */
export function timeAtX(win: TimelineWindow, x: number): number {
  const labelWidth = win.labelWidth ?? 200;
  const width = Math.max(win.width, labelWidth + 100);
  const plotWidth = width - labelWidth - RIGHT;
  return win.from + ((x - labelWidth) / plotWidth) * Math.max(win.to - win.from, 1);
}
