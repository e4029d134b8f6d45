// Draws a chaos run's timeline as one SVG string: a pure function of the
// events (no clock, no randomness, no DOM), so the same input always gives
// the same bytes and the HTML report and the web UI draw the same picture.
// Lanes, top to bottom: one per fault (a bar from injection to recovery; a
// tick for a fault that has no recovery, such as a kill), the system's
// reactions by source (Event, Pod, Node) as marks, then one lane per check
// (passes, failures and each pass's time to recovery as a line leading to
// it) and per invariant (its violations).
import type { TimelineEvent } from './types.ts';

/** How to draw. */
export interface TimelineOptions {
  /** Total width in pixels (default 960). */
  width?: number;
  /** The time the axis ends at; default: the last event's. */
  durationMs?: number;
  /** A heading drawn above the lanes. */
  title?: string;
  /** Width of the lane labels on the left (default 190). */
  labelWidth?: number;
  /** Height of one lane (default 22). */
  laneHeight?: number;
}

interface Lane {
  label: string;
  shapes: string[];
}

const COLORS = {
  fault: '#d9822b',
  faultOpen: '#e8a867',
  pass: '#2e9e5b',
  fail: '#d0343a',
  reaction: '#6b7a8f',
  warning: '#d0343a',
  ttr: '#2e9e5b',
  grid: '#e3e6ea',
  text: '#1f2933',
};

/** Escapes text for an SVG/XML text node or attribute value. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** "850ms", "1.5s", "12s", "2m05s": short labels for the axis and the marks. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m${String(s).padStart(2, '0')}s`;
}

/** An axis step that gives at most about ten ticks. */
export function tickStep(durationMs: number): number {
  const steps = [100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  return steps.find((s) => durationMs / s <= 10) ?? Math.ceil(durationMs / 10 / 3_600_000) * 3_600_000;
}

const n = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** The SVG of `events`; see the file comment. */
export function renderTimelineSvg(events: readonly TimelineEvent[], options: TimelineOptions = {}): string {
  const width = Math.max(options.width ?? 960, 300);
  const labelWidth = options.labelWidth ?? 190;
  const laneHeight = options.laneHeight ?? 22;
  const right = 16;
  const plotWidth = width - labelWidth - right;
  const lastAt = events.reduce((m, e) => Math.max(m, e.at), 0);
  const duration = Math.max(options.durationMs ?? 0, lastAt, 1);
  const x = (t: number): number => labelWidth + (Math.min(Math.max(t, 0), duration) / duration) * plotWidth;
  const title = (text: string): string => `<title>${escapeXml(text)}</title>`;
  const describe = (e: TimelineEvent): string =>
    [`${formatDuration(e.at)} ${e.name}`, e.object, e.message].filter((s) => s !== undefined && s !== '').join(' — ');

  const faultLanes: Lane[] = [];
  const open = new Map<string, { lane: Lane; at: number; e: TimelineEvent }>();
  const reactionLanes = new Map<string, Lane>();
  const checkLanes = new Map<string, Lane>();
  const invariantLanes = new Map<string, Lane>();
  const laneOf = (map: Map<string, Lane>, label: string): Lane => {
    let lane = map.get(label);
    if (!lane) map.set(label, (lane = { label, shapes: [] }));
    return lane;
  };
  // Shapes are drawn relative to their lane's middle (y=0); the lane's <g> moves them into place.
  const bar = (from: number, to: number, color: string, tip: string): string =>
    `<rect x="${n(x(from))}" y="-7" width="${n(Math.max(x(to) - x(from), 2))}" height="14" rx="2" fill="${color}">${title(tip)}</rect>`;

  for (const e of events) {
    switch (e.type) {
      case 'fault-injected': {
        const lane: Lane = { label: e.name, shapes: [] };
        faultLanes.push(lane);
        if (e.faultId) open.set(e.faultId, { lane, at: e.at, e });
        else lane.shapes.push(bar(e.at, e.at, COLORS.fault, describe(e)));
        break;
      }
      case 'fault-recovered': {
        const o = e.faultId ? open.get(e.faultId) : undefined;
        if (o) {
          o.lane.shapes.push(bar(o.at, e.at, COLORS.fault, `${describe(o.e)} (recovered at ${formatDuration(e.at)})`));
          open.delete(e.faultId!);
        }
        break;
      }
      case 'reaction': {
        const lane = laneOf(reactionLanes, e.mode ?? 'reaction');
        const color = e.warning ? COLORS.warning : COLORS.reaction;
        lane.shapes.push(`<rect x="${n(x(e.at) - 1)}" y="-6" width="2" height="12" fill="${color}">${title(describe(e))}</rect>`);
        break;
      }
      case 'check-passed':
      case 'check-failed': {
        const lane = laneOf(checkLanes, e.mode ? `${e.name} (${e.mode})` : e.name);
        const cx = x(e.at);
        if (e.type === 'check-passed') {
          if (e.timeToRecoveryMs !== undefined) {
            const from = x(e.at - e.timeToRecoveryMs);
            lane.shapes.push(
              `<line x1="${n(from)}" y1="0" x2="${n(cx)}" y2="0" stroke="${COLORS.ttr}" stroke-width="2" stroke-dasharray="4 2"/>`,
              `<text x="${n(cx + 7)}" y="4" font-size="10" fill="${COLORS.text}">${escapeXml(formatDuration(e.timeToRecoveryMs))}</text>`,
            );
          }
          lane.shapes.push(`<circle cx="${n(cx)}" cy="0" r="5" fill="${COLORS.pass}">${title(describe(e))}</circle>`);
        } else {
          lane.shapes.push(
            `<path d="M${n(cx - 5)} -5 L${n(cx + 5)} 5 M${n(cx - 5)} 5 L${n(cx + 5)} -5" stroke="${COLORS.fail}" stroke-width="2.5">${title(describe(e))}</path>`,
          );
        }
        break;
      }
      case 'invariant-violated': {
        const lane = laneOf(invariantLanes, `${e.name} (invariant)`);
        const cx = x(e.at);
        lane.shapes.push(
          `<path d="M${n(cx)} -6 L${n(cx + 6)} 0 L${n(cx)} 6 L${n(cx - 6)} 0 Z" fill="${COLORS.fail}">${title(describe(e))}</path>`,
        );
        break;
      }
      default:
        break;
    }
  }
  // A fault never recovered runs to the end of the axis, drawn lighter.
  for (const o of open.values()) o.lane.shapes.push(bar(o.at, duration, COLORS.faultOpen, `${describe(o.e)} (not recovered)`));

  const lanes = [...faultLanes, ...reactionLanes.values(), ...checkLanes.values(), ...invariantLanes.values()];
  const top = options.title ? 34 : 10;
  const axisY = top + lanes.length * laneHeight + 8;
  const height = axisY + 24;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" role="img">`,
  ];
  if (options.title)
    out.push(`<text x="8" y="20" font-size="14" font-weight="600" fill="${COLORS.text}">${escapeXml(options.title)}</text>`);
  const step = tickStep(duration);
  for (let t = 0; t <= duration; t += step) {
    out.push(
      `<line x1="${n(x(t))}" y1="${top}" x2="${n(x(t))}" y2="${axisY}" stroke="${COLORS.grid}"/>`,
      `<text x="${n(x(t))}" y="${axisY + 16}" font-size="10" text-anchor="middle" fill="${COLORS.text}">${formatDuration(t)}</text>`,
    );
  }
  out.push(`<line x1="${labelWidth}" y1="${axisY}" x2="${labelWidth + plotWidth}" y2="${axisY}" stroke="${COLORS.text}"/>`);
  lanes.forEach((lane, i) => {
    const mid = top + i * laneHeight + laneHeight / 2;
    const label = lane.label.length > 30 ? `${lane.label.slice(0, 29)}…` : lane.label;
    out.push(
      `<g transform="translate(0 ${n(mid)})">`,
      `<text x="${labelWidth - 8}" y="4" font-size="11" text-anchor="end" fill="${COLORS.text}">${escapeXml(label)}${title(lane.label)}</text>`,
      ...lane.shapes,
      '</g>',
    );
  });
  out.push('</svg>');
  return out.join('\n');
}
