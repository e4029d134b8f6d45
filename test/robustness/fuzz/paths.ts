// Hostile names and paths. Every hostile name starts with a token that cannot
// be an object's name in kube (".", "..", their encodings, NUL, malformed
// percent-encoding, a backslash, upper case, too long), so a request that
// uses one can never legitimately reach a stored object: any change it makes
// to stored data is a bug, whatever the verb.
import type { Rng } from './prng.ts';

const INVALID_FIRST = [
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%2E%2e',
  '%00',
  'a%00',
  '%00..',
  '%',
  '%zz',
  '%2',
  '%e2%82',
  '%ff%fe',
  '%c0%ae%c0%ae',
  '..\\',
  'x\\..\\..',
  '..%5c..',
  '%5c',
  'UPPER',
  'sp%20ace',
  'tab%09',
  'new%0aline',
  'a'.repeat(254),
  'b'.repeat(10_000),
  '-leading',
  'trailing-',
  'semi;colon',
  'quote%22',
  '%u002e%u002e',
];

const SUFFIXES = [
  '',
  '',
  '',
  '/..',
  '/../..',
  '/../../..',
  '%2f..%2f..%2fnamespaces%2fdefault',
  '%2F..%2F..',
  '\\..\\..\\kube-system\\secrets\\hidden',
  '/status',
  '/../status',
  '/..%2f..%2fkube-system%2fsecrets%2fhidden',
  '/./.',
  '//',
  '/%2e%2e/%2e%2e/%2e%2e',
];

/** A name that no stored object can have, possibly followed by traversal. */
export function hostileName(r: Rng): string {
  return r.pick(INVALID_FIRST) + r.pick(SUFFIXES);
}

/** A hostile namespace segment (same rule: never a valid namespace name). */
export function hostileNamespace(r: Rng): string {
  return r.pick(INVALID_FIRST) + r.pick(['', '', '%2fsecrets', '\\..', '%2f..%2fkube-system']);
}

/** Percent-encodes some letters of a valid segment: the same name to kube (it decodes the path). */
export function encodeLetters(r: Rng, s: string): string {
  return [...s].map((c) => (r.chance(0.3) ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
}

/** An odd group/version prefix, never a served one. */
export function oddPrefix(r: Rng): string {
  return r.pick([
    '/apis/apps/v2',
    '/apis/apps/V1',
    '/apis/APPS/v1',
    '/apis/nope.example.com/v1',
    '/apis//v1',
    '/api/v2',
    '/api/v1beta1',
    '/api/V1',
    '/apis/autoscaling/v1',
    '/apis/extensions/v1beta1',
    '/apis/%2e%2e/v1',
    '/apis/apps%00/v1',
    `/apis/${'g'.repeat(5000)}/v1`,
    '/apis/apps/v1%2f..',
    '/apis/apps/%2e%2e',
    '/api/%2e%2e',
    '/apis/meta.k8s.io/v1',
    '/apis/apps/v1/watch/watch',
    '/api/v1/api/v1',
  ]);
}

/**
 * An odd resource segment. Never "" or "status"/"finalize": under
 * /namespaces/NS those name the Namespace itself (a trailing slash is trimmed
 * by kube), so a collection request there would be a legitimate write to it.
 */
export function oddResource(r: Rng): string {
  return r.pick([
    'ConfigMaps',
    'configmap',
    'cm',
    'configmaps%00',
    '%2e%2e',
    'pods.',
    'deployments.apps',
    'nope',
    'x'.repeat(3000),
    'secrets%2f..',
    'namespaces',
    'watch',
    'Status',
  ]);
}

/** A whole path that names no object and no collection in kube (a 4xx for every method). */
export function hostilePath(r: Rng): string {
  return r.pick([
    '/',
    '//',
    '/..',
    '/%2e%2e/api/v1',
    '/api/..',
    '/api/v1/..',
    '/api/v1/namespaces/..',
    '/api/v1/namespaces/%2e%2e',
    '/api/v1/namespaces/default/..',
    '/api/v1/namespaces/default/%2e%2e',
    '/api/v1/namespaces/default/configmaps/%2e%2e',
    '/api/v1/namespaces/default/configmaps/.',
    '/api/v1/namespaces/default/configmaps/..',
    '/api/v1/namespaces/%2e%2e/secrets',
    '/api/v1/namespaces/./secrets',
    '/api/v1/namespaces/default/configmaps/..\\..\\kube-system\\secrets\\hidden',
    '/api/v1/namespaces/default/configmaps/%2e%2e%2f%2e%2e%2fkube-system%2fsecrets%2fhidden',
    '/api/v1/namespaces/default/configmaps/%',
    '/api/v1/namespaces/default/configmaps/%E0%A4%A',
    '/api/v1/namespaces/default/configmaps/%ff',
    '/api/v1/namespaces/%00/configmaps/%00',
    '/api/v1/namespaces/default/configmaps/keep-configmap/..',
    '/api/v1/namespaces/default/configmaps/keep-configmap/%2e%2e/%2e%2e',
    '/api/v1/namespaces/default/pods/keep-pod/..%2f..%2fsecrets',
    '/api\\v1\\namespaces\\default\\secrets',
    '/api/v1/namespaces/default/secrets\\..\\..\\kube-system\\secrets',
    '/apis/apps/v1/namespaces/default/deployments/%2e%2e',
    '/apis/apps/v1/namespaces/default/deployments/keep-deployment/scale/..',
    '/api/v1/nodes/%2e%2e',
    '/api/v1/nodes/..',
    '/api/v1/namespaces/default/serviceaccounts/keep-serviceaccount/token/..',
    '/api/v1/watch/namespaces/%2e%2e/configmaps',
    '/api/v1/' + 'a/'.repeat(2000),
    '/api/v1/namespaces/' + 'n'.repeat(100_000) + '/configmaps/x',
    '/metrics/..',
    '/healthz/%2e%2e',
    '/openapi/v2/..',
    '/openapi/v3/%2e%2e',
    '/openapi/v3/apis/%2e%2e/%2e%2e',
    '/version%00',
    '/%',
  ]);
}

/** Percent-encodes characters node's HTTP client refuses in a request target, leaving the rest as it is. */
export function wireSafe(path: string): string {
  return path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}
