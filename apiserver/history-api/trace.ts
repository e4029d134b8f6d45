// The causal chain of one revision, from the causes components record with
// their writes (shared/api/write-cause.ts): its effects are the writes whose
// cause names it as a trigger, and theirs, as a tree (each write once, under
// the first write found to have caused it); its causes are the chain of
// triggers that led to it, nearest first.
import type { ObjectRef, Trace, TraceNode } from '../../shared/api/history-types.ts';
import { HISTORY_API_VERSION } from '../../shared/api/history-types.ts';
import type { ChangeInfo, History } from '../storage/history.ts';
import { refOfKey } from './object-ref.ts';

/**
 * How far a trace looks: revisions after the root scanned for effects (and
 * for how long after it), nodes in the tree, causes followed.
 */
export const TRACE_LIMITS = { scan: 20_000, windowMs: 5 * 60_000, nodes: 2_000, causes: 32 };

const PAGE = 10_000;

export const rfc3339 = (ms: number) => new Date(ms).toISOString();

function refOf(key: string): ObjectRef {
  return refOfKey(key) ?? { group: '', resource: '', name: key };
}

function nodeOf(c: ChangeInfo): TraceNode {
  const n: TraceNode = { revision: String(c.rev), type: c.type, time: rfc3339(c.at), object: refOf(c.key), children: [] };
  if (c.writer) n.writer = c.writer;
  return n;
}

const triggerOf = (c: ChangeInfo): string | undefined => {
  const t = c.writer?.cause?.triggers;
  return t && t.length > 0 ? t[t.length - 1] : undefined;
};

/** The trace of `root` (a kept revision, with its key) read from `history`. */
export async function traceOf(history: History, root: ChangeInfo, limits = TRACE_LIMITS): Promise<Trace> {
  // Effects: every later write, grouped by the triggers its cause names.
  const byTrigger = new Map<string, ChangeInfo[]>();
  let scanned = 0;
  let token: string | undefined;
  do {
    const page = await history.changesBetween(root.rev, Number.MAX_SAFE_INTEGER, {
      limit: Math.min(PAGE, limits.scan - scanned),
      continue: token,
    });
    const end = page.items.findIndex((c) => c.at > root.at + limits.windowMs);
    for (const c of end < 0 ? page.items : page.items.slice(0, end))
      for (const t of c.writer?.cause?.triggers ?? []) {
        let list = byTrigger.get(t);
        if (!list) byTrigger.set(t, (list = []));
        list.push(c);
      }
    scanned += page.items.length;
    token = end < 0 ? page.continue : undefined;
  } while (token && scanned < limits.scan);

  const top = nodeOf(root);
  const seen = new Set<number>([root.rev]);
  let count = 1;
  const queue: [TraceNode, number][] = [[top, root.rev]];
  while (queue.length > 0 && count < limits.nodes) {
    const [node, rev] = queue.shift()!;
    for (const c of byTrigger.get(String(rev)) ?? []) {
      if (seen.has(c.rev) || count >= limits.nodes) continue;
      seen.add(c.rev);
      count++;
      const child = nodeOf(c);
      node.children.push(child);
      queue.push([child, c.rev]);
    }
  }

  // Causes: follow each write's newest trigger back.
  const causes: TraceNode[] = [];
  let cur: ChangeInfo = root;
  for (let i = 0; i < limits.causes; i++) {
    const t = triggerOf(cur);
    if (!t) break;
    const page = await history.changesBetween(Number(t) - 1, Number(t), { limit: 1 });
    const found = page.items[0];
    if (!found || found.rev !== Number(t) || seen.has(found.rev)) break;
    seen.add(found.rev);
    causes.push(nodeOf(found));
    cur = found;
  }
  return { kind: 'Trace', apiVersion: HISTORY_API_VERSION, root: top, causes };
}
