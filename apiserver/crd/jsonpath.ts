// The JSONPath subset CRDs use in additionalPrinterColumns, selectableFields
// and scale paths (kube evaluates them with client-go's jsonpath): `.a.b`,
// `.a[0]`, `.a[*].b`, `.a['dotted.key']`, and the filter
// `[?(@.type=="Ready")]` that condition columns rely on.

type Step = { key: string } | { index: number } | { all: true } | { filter: { path: string[]; value: string } };

function parse(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = 0;
  const s = path.trim().replace(/^\{|\}$/g, '');
  while (i < s.length) {
    if (s[i] === '.') {
      i++;
      const m = /^[^.[\]]+/.exec(s.slice(i));
      if (!m) continue;
      steps.push({ key: m[0] });
      i += m[0].length;
    } else if (s[i] === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ key: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[^.=!<>\s]+)+)\s*==\s*(['"])(.*)\2\)$/.exec(inner);
        if (!f) return undefined;
        steps.push({ filter: { path: f[1].slice(1).split('.'), value: f[3] } });
      }
    } else {
      const m = /^[^.[\]]+/.exec(s.slice(i));
      if (!m) return undefined;
      steps.push({ key: m[0] });
      i += m[0].length;
    }
  }
  return steps;
}

const cache = new Map<string, Step[] | undefined>();

/** The values `path` selects in `obj` (empty when nothing matches or the path is not understood). */
export function evalJsonPath(obj: unknown, path: string): unknown[] {
  let steps = cache.get(path);
  if (!cache.has(path)) {
    steps = parse(path);
    cache.set(path, steps);
  }
  if (!steps) return [];
  let cur: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('key' in step) {
        if (v && typeof v === 'object' && !Array.isArray(v) && step.key in v) next.push((v as Record<string, unknown>)[step.key]);
      } else if ('index' in step) {
        if (Array.isArray(v)) {
          const at = step.index < 0 ? v.length + step.index : step.index;
          if (at >= 0 && at < v.length) next.push(v[at]);
        }
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === 'object') next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let x: unknown = item;
          for (const k of step.filter.path) x = x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined;
          if ((typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') && String(x) === step.filter.value)
            next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

/** Sets the value at a simple path (`.spec.replicas`), making objects on the way. */
export function setJsonPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.replace(/^\./, '').split('.');
  let cur: Record<string, unknown> = obj;
  for (const k of keys.slice(0, -1)) {
    const next = cur[k];
    if (!next || typeof next !== 'object' || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = value;
}
