// The text `ksim history|diff|blame|trace` print: tables in kubectl's style
// and the trace as an indented tree, from the history API's objects.
import { timeOfDay } from '../time-of-day.ts';
import type { FieldBlame, RevisionDiff, RevisionList, Trace, TraceNode, Writer } from '../../shared/api/history-types.ts';
import { formatColumns } from '../../shared/cli/columns.ts';
import { targetText } from './target.ts';

const MAX_VALUE = 60;

/** A value as one short line: JSON, cut to MAX_VALUE characters. */
export function valueText(v: unknown): string {
  const s = v === undefined ? '<none>' : typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 3)}...` : s;
}

/** The verb and subresource: "patch", "update status", "create binding". */
export const verbText = (w: Writer | undefined): string => (w ? [w.verb, w.subresource].filter(Boolean).join(' ') : '');

/** Why a component wrote: "replicaset default/web-7c5 <- 1234 (detail)". */
export function causeText(w: Writer | undefined): string {
  const c = w?.cause;
  if (!c) return '';
  let s = c.controller;
  if (c.key) s += ` ${c.key}`;
  if (c.triggers?.length) s += ` <- ${c.triggers.join(',')}`;
  if (c.detail) s += ` (${c.detail})`;
  return s;
}

/** `ksim history`: one line per revision. */
export function historyTable(list: RevisionList): string {
  const rows = [['REVISION', 'TIME', 'TYPE', 'WRITER', 'MANAGER', 'VERB', 'CAUSE', 'CHANGED']];
  for (const r of list.items) {
    const changed = r.changed ?? [];
    const shown = changed.slice(0, 3).join(' ') + (changed.length > 3 ? ` (+${changed.length - 3} more)` : '');
    rows.push([
      r.revision,
      timeOfDay(r.time),
      r.type,
      r.writer?.user ?? '<unknown>',
      r.writer?.fieldManager ?? '',
      verbText(r.writer),
      causeText(r.writer),
      shown,
    ]);
  }
  return formatColumns(rows);
}

/** `ksim diff`: a header, then one line per field: `~ path: old -> new`, `+ path: new`, `- path: old`. */
export function diffText(d: RevisionDiff): string {
  let out = `${targetText(d.object)}: revision ${d.from} -> ${d.to}\n`;
  if (d.changes.length === 0) return `${out}(no changes)\n`;
  for (const c of d.changes) {
    if (c.op === 'replace') out += `~ ${c.path}: ${valueText(c.old)} -> ${valueText(c.new)}\n`;
    else if (c.op === 'add') out += `+ ${c.path}: ${valueText(c.new)}\n`;
    else out += `- ${c.path}: ${valueText(c.old)}\n`;
  }
  return out;
}

/** `ksim blame`: one line per field. */
export function blameTable(b: FieldBlame): string {
  const rows = [['FIELD', 'VALUE', 'REVISION', 'MANAGER', 'WRITER', 'CAUSE']];
  for (const f of b.fields)
    rows.push([
      f.path,
      valueText(f.value),
      f.revision,
      f.manager ?? f.writer?.fieldManager ?? '',
      f.writer?.user ?? '',
      causeText(f.writer),
    ]);
  return formatColumns(rows);
}

function nodeLine(n: TraceNode, rootTime: number): string {
  const dt = Date.parse(n.time) - rootTime;
  const when = dt === 0 ? timeOfDay(n.time) : `+${dt}ms`;
  const object = `${targetText(n.object)}${n.object.namespace ? ` -n ${n.object.namespace}` : ''}`;
  const who = n.writer ? ` by ${n.writer.user}${n.writer.fieldManager ? ` (${n.writer.fieldManager})` : ''}` : '';
  const why = causeText(n.writer);
  return `${n.revision} ${when} ${n.type} ${verbText(n.writer)} ${object}${who}${why ? ` [${why}]` : ''}`;
}

/** `ksim trace`: the causes, then the revision with the writes it caused as a tree. */
export function traceText(t: Trace): string {
  const rootTime = Date.parse(t.root.time);
  let out = '';
  if (t.causes.length) {
    out += 'caused by (nearest first):\n';
    for (const c of t.causes) out += `  ^ ${nodeLine(c, rootTime)}\n`;
    out += '\n';
  }
  out += `${nodeLine(t.root, rootTime)}\n`;
  const walk = (nodes: TraceNode[], prefix: string) => {
    nodes.forEach((n, i) => {
      const last = i === nodes.length - 1;
      out += `${prefix}${last ? '`- ' : '|- '}${nodeLine(n, rootTime)}\n`;
      walk(n.children, prefix + (last ? '   ' : '|  '));
    });
  };
  walk(t.root.children, '');
  return out;
}
