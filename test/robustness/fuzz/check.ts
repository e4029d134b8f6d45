// Judges one answer: no hang, no broken connection, never a 5xx, a 4xx
// carries a metav1.Status (in the format it was sent in), a request that kube
// must refuse was refused, a hostile name resolved to nothing, and a GET of
// one object answered that object and not one from another namespace.
import YAML from 'yaml';
import { decodeKubeProtobuf } from '../../../shared/api/protobuf/index.ts';
import type { FuzzRequest } from './generate.ts';
import type { Outcome } from './send.ts';

/** One thing wrong with an answer; `kind` is what failures are grouped by. */
export interface Problem {
  kind: string;
  detail: string;
}

function decodeBody(contentType: string, body: Buffer): any {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return JSON.parse(body.toString('utf8'));
  if (type === 'application/yaml') return YAML.parse(body.toString('utf8'));
  if (type === 'application/vnd.kubernetes.protobuf') return decodeKubeProtobuf(body).object;
  throw new Error(`content type ${JSON.stringify(contentType)}`);
}

/** Problems with a 4xx body, or [] when it is a proper metav1.Status. */
function statusProblems(status: number, contentType: string, body: Buffer): Problem[] {
  let s: any;
  try {
    s = decodeBody(contentType, body);
  } catch (err) {
    return [
      {
        kind: `${status} body is not a Status`,
        detail: `${(err as Error).message}; body starts ${JSON.stringify(body.subarray(0, 120).toString('utf8'))}`,
      },
    ];
  }
  const wrong: string[] = [];
  if (s?.kind !== 'Status') wrong.push(`kind ${JSON.stringify(s?.kind)}`);
  if (s?.apiVersion !== 'v1') wrong.push(`apiVersion ${JSON.stringify(s?.apiVersion)}`);
  if (s?.status !== 'Failure') wrong.push(`status ${JSON.stringify(s?.status)}`);
  if (s?.code !== status) wrong.push(`code ${JSON.stringify(s?.code)}`);
  if (typeof s?.message !== 'string' || s.message === '') wrong.push('no message');
  return wrong.length ? [{ kind: `${status} Status malformed`, detail: `${wrong.join(', ')}: ${JSON.stringify(s)?.slice(0, 200)}` }] : [];
}

/** Objects in an answer that lie outside the request's namespace. */
function scopeProblems(req: FuzzRequest, contentType: string, body: Buffer): Problem[] {
  let o: any;
  try {
    o = decodeBody(contentType, body);
  } catch {
    return [];
  }
  if (!o || typeof o !== 'object' || o.kind === 'Status') return [];
  const objects: any[] = Array.isArray(o.items) ? o.items : Array.isArray(o.rows) ? o.rows.map((row: any) => row?.object) : [o];
  const scope = req.scope!;
  if ('empty' in scope) {
    return Array.isArray(o.items) && o.items.length > 0
      ? [
          {
            kind: 'objects answered for a hostile namespace',
            detail: objects
              .slice(0, 3)
              .map((x) => `${x?.metadata?.namespace}/${x?.metadata?.name}`)
              .join(', '),
          },
        ]
      : [];
  }
  const outside = objects.filter(
    (x) => x?.metadata && typeof x.metadata.name === 'string' && (x.metadata.namespace ?? '') !== scope.namespace,
  );
  return outside.length
    ? [
        {
          kind: 'answered objects of another namespace',
          detail: `asked ${JSON.stringify(scope.namespace)}, got ${outside
            .slice(0, 3)
            .map((x) => `${x.metadata.namespace}/${x.metadata.name}`)
            .join(', ')}`,
        },
      ]
    : [];
}

/** True for a resourceVersion kube parses (a uint64); kube refuses any other with a 4xx before waiting. */
function isUint64(rv: string | null): boolean {
  return rv !== null && /^[0-9]+$/.test(rv) && BigInt(rv) <= 2n ** 64n - 1n;
}

/** True for kube's refusal of a create carrying metadata.resourceVersion (a 500 Status with no reason). */
function isResourceVersionOnCreate(body: Buffer, contentType: string): boolean {
  try {
    const s = decodeBody(contentType, body);
    return s?.message === 'resourceVersion should not be set on objects to be created' && s?.reason === undefined;
  } catch {
    return false;
  }
}

/** Everything wrong with the outcome of req; [] when it is acceptable. */
export function checkOutcome(req: FuzzRequest, out: Outcome): Problem[] {
  if (out.kind === 'timeout') {
    return [{ kind: out.gotHeaders ? `hang: ${out.status} body never ended` : 'hang: no answer', detail: `after ${out.ms} ms` }];
  }
  if (out.kind === 'error') return [{ kind: `connection ${out.code}`, detail: out.message }];
  const problems: Problem[] = [];
  const { status } = out;
  const contentType = String(out.headers['content-type'] ?? '');
  const rv = new URLSearchParams(req.path.split('?')[1] ?? '').get('resourceVersion');
  if (status === 504 && (req.method === 'HEAD' || /ResourceVersionTooLarge/.test(out.body.toString('utf8'))) && isUint64(rv)) {
    // kube's own answer to a resourceVersion the store has not reached: a 504 Timeout Status after waiting (client-go relies on it).
    if (req.method !== 'HEAD') problems.push(...statusProblems(status, contentType, out.body));
  } else if (status === 503 && /\/(exec|attach|portforward)(\?|$)/.test(req.path) && /kubelet/.test(out.body.toString('utf8'))) {
    // The corpus's Pods sit on a Node with no kubelet: a stream to them cannot be served, and kube answers that
    // with a 5xx too. The input is not at fault, so only the Status is checked.
    problems.push(...statusProblems(status, contentType, out.body));
  } else if (status === 500 && req.method === 'POST' && isResourceVersionOnCreate(out.body, contentType)) {
    // kube's own answer to a create that carries metadata.resourceVersion: its storage refuses it with an error
    // that is not a Status, a 500 without a reason (checked exactly in test/create-resource-version.test.ts).
    problems.push(...statusProblems(status, contentType, out.body));
  } else if (status >= 500) {
    let msg: string;
    try {
      msg = decodeBody(contentType, out.body)?.message ?? '';
    } catch {
      msg = out.body.subarray(0, 120).toString('utf8');
    }
    problems.push({ kind: `${status}`, detail: msg });
  } else if (status >= 400 && req.method !== 'HEAD') {
    problems.push(...statusProblems(status, contentType, out.body));
  } else if (status < 400 && status >= 200) {
    // kube never reads the body of a GET or HEAD, so what is wrong with it cannot matter there.
    if (req.mustRefuse && req.method !== 'GET' && req.method !== 'HEAD')
      problems.push({ kind: `${status} where kube refuses`, detail: req.mustRefuse });
    const isWatch = out.stream || /[?&]watch=(?!0|false)/i.test(req.path) || /\/watch\//.test(req.path);
    if (req.hostile && !isWatch)
      problems.push({ kind: `${status} for a hostile name or path`, detail: 'kube answers 4xx: the path names no object' });
    if (req.scope && !out.stream && req.method !== 'HEAD') problems.push(...scopeProblems(req, contentType, out.body));
    if (req.expectObject && !out.stream && status === 200 && req.method === 'GET') {
      try {
        const o = decodeBody(contentType, out.body);
        const m = o?.metadata;
        if (
          m &&
          typeof m.name === 'string' &&
          !/List$|^Table$/.test(o.kind ?? '') &&
          (m.name !== req.expectObject.name || (m.namespace ?? '') !== req.expectObject.namespace)
        ) {
          problems.push({
            kind: 'answered another object',
            detail: `asked ${req.expectObject.namespace}/${req.expectObject.name}, got ${m.namespace}/${m.name}`,
          });
        }
      } catch {
        // Tables and other views may not decode here; the status check above is enough.
      }
    }
  }
  return problems;
}
