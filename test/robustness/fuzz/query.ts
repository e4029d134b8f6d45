// Garbage for query parameters and headers: selectors, paging, resource
// versions, timeouts, watch flags, dry run, field validation, delete options,
// and content types and Accept headers kube does and does not serve.
import type { Rng } from './prng.ts';

const LABEL_SELECTORS = [
  'a in (b',
  '!!a',
  'a==',
  '=b',
  'a notin ()',
  'a,',
  ',,',
  'a=b=c',
  'k'.repeat(1000) + '=v',
  'a=\u0000',
  'a in (x,y),!b,c!=d',
  'ключ=в',
  'a>1',
  'a<',
  '(',
  '%ff',
  'app=keep-configmap',
  'a=b,c',
  '!',
  'a!b',
  'a in(b),',
  'x/y/z=1',
  'a=' + 'v'.repeat(70),
  'a in (' + 'b,'.repeat(2000) + 'c)',
  ' ',
  'a\\,b=c',
  'a=b%2cc',
];
const FIELD_SELECTORS = [
  'metadata.name=',
  'metadata.name==x',
  'spec.nodeName!=',
  'foo=bar',
  'metadata.namespace=x,',
  'status.phase=Running',
  '=',
  'a\\,b=c',
  'metadata.name',
  'metadata.name in (a)',
  'metadata.name=keep-configmap',
  'spec.nodeName=\u0000',
  'type=Opaque',
  ',',
  '\\',
  'metadata.name=a\\',
  'metadata.name=' + 'x'.repeat(5000),
];
const CONTINUES = [
  'garbage',
  '!!!',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiIn0',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8uLi8ifQ',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MWU5OTksInN0YXJ0IjpudWxsfQ',
  'e30',
  'bnVsbA',
  'W10',
  '',
  '%zz',
  'x'.repeat(5000),
  Buffer.from('{"v":"meta.k8s.io/v1","rv":3,"start":"\\u0000"}').toString('base64url'),
  Buffer.from('{"v":"meta.k8s.io/v1","rv":"abc","start":{}}').toString('base64'),
];
// Tokens shaped as kube's (base64 of {"v","rv","start"}) whose start key tries to leave the listed prefix.
const token = (rv: unknown, start: unknown) => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
CONTINUES.push(
  ...['../kube-system/', 'kube-system/hidden', '', '/', '%2e%2e/', '..\\..\\', 'zzzz', 'a/../../secrets/'].map((k) =>
    token(5, `${k}\u0000`),
  ),
  token(5, 'keep-secret'),
  token(-1, 'a\u0000'),
  token(1e300, 'a\u0000'),
  token('5', 'a\u0000'),
  token(5, ['a']),
);

const RVS = ['abc', '-1', '0', '99999999999999999999', '1.5', '', ' 1', '1e3', '0x10', '18446744073709551616', '9007199254740993', '1'];
const BOOLS = ['true', 'True', '1', '0', 'false', 'FALSE', 'yes', '', 'x', '%00'];
const INTS = ['-1', '0', 'abc', '1e3', '99999999999999999999', '1.5', '', '2147483648', '-9223372036854775809', '0x1', ' 3', 'NaN'];

/** One garbage query parameter (name and value), from kube's list of parameters and a few that do not exist. */
export function badParam(r: Rng): [string, string] {
  switch (r.int(0, 22)) {
    case 0:
      return ['labelSelector', r.pick(LABEL_SELECTORS)];
    case 1:
      return ['fieldSelector', r.pick(FIELD_SELECTORS)];
    case 2:
      return ['limit', r.pick(INTS)];
    case 3:
      return ['continue', r.pick(CONTINUES)];
    case 4:
      return ['resourceVersion', r.pick(RVS)];
    case 5:
      return ['resourceVersionMatch', r.pick(['Exact', 'NotOlderThan', 'exact', 'garbage', ''])];
    case 6:
      return ['timeoutSeconds', r.pick(INTS)];
    case 7:
      return ['watch', r.pick(BOOLS)];
    case 8:
      return ['allowWatchBookmarks', r.pick(BOOLS)];
    case 9:
      return ['sendInitialEvents', r.pick(BOOLS)];
    case 10:
      return ['dryRun', r.pick(['All', 'all', 'Garbage', '', 'All,All'])];
    case 11:
      return ['fieldValidation', r.pick(['Strict', 'Warn', 'Ignore', 'strict', 'garbage', ''])];
    case 12:
      return ['fieldManager', r.pick(['', 'm'.repeat(200), 'ünï', 'a\u0001b', 'kubectl', 'x/y'])];
    case 13:
      return ['force', r.pick(BOOLS)];
    case 14:
      return ['propagationPolicy', r.pick(['Foreground', 'Background', 'Orphan', 'garbage', '', 'orphan'])];
    case 15:
      return ['gracePeriodSeconds', r.pick(INTS)];
    case 16:
      return ['orphanDependents', r.pick(BOOLS)];
    case 17:
      return ['pretty', r.pick(BOOLS)];
    case 18:
      return ['includeObject', r.pick(['Object', 'Metadata', 'None', 'garbage'])];
    case 19:
      return ['ignoreStoreReadErrorWithClusterBreakingPotential', r.pick(BOOLS)];
    case 20:
      return [r.pick(['', '%zz', 'a%00', 'ñ', 'x'.repeat(500)]), r.pick(['', 'v', '%', '%e2'])];
    case 21:
      return ['container', r.pick(['', 'c', '..', '%00'])];
    default:
      return ['command', r.pick(['', 'sh', '..'])];
  }
}

/** A query string of n garbage parameters; values are percent-encoded unless `raw` (then sent as they are, malformed encoding included). */
export function badQuery(r: Rng, n = r.int(1, 4)): [string, string][] {
  return Array.from({ length: n }, () => badParam(r));
}

/** Serialises parameters; some values go raw so malformed percent-encoding reaches the server. */
export function queryString(r: Rng, params: [string, string][]): string {
  if (params.length === 0) return '';
  const parts = params.map(([k, v]) => {
    const raw = /%/.test(k + v) && r.chance(0.5);
    return raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
  });
  return '?' + parts.join('&');
}

/** An Accept header, often one kube serves, sometimes not. */
export function acceptHeader(r: Rng): string | undefined {
  return r.pick([
    undefined,
    'application/json',
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf, */*',
    'application/json;as=Table;v=v1;g=meta.k8s.io',
    'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    'application/json;as=Table;v=v9;g=meta.k8s.io',
    'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io',
    '*/*',
    'text/html',
    ';;;',
    'application/json;q=0',
    'image/png',
    'application/' + 'x'.repeat(10_000),
    'application/*',
    '',
    'application/json;charset=utf-16',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/json;stream=watch',
    'ünïcode/type',
  ]);
}

/** A content type for a body: usually the right one for its encoding, sometimes a wrong or malformed one. */
export function contentTypeFor(r: Rng, right: string): string | undefined {
  if (r.chance(0.8)) return right;
  return r.pick([
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; charset=garbage',
    ';;',
    'application/json;;;',
    'application/vnd.kubernetes.protobuf',
    'application/yaml',
    'application/json',
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'APPLICATION/JSON',
    'application/' + 'y'.repeat(5000),
    '*/*',
    'application/json, application/yaml',
  ]);
}
