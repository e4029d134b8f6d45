// kube's impersonation filter: a request may act as another user with the
// Impersonate-User, Impersonate-Group, Impersonate-Uid and
// Impersonate-Extra-KEY headers, when the caller may `impersonate` each of
// them (users, groups, serviceaccounts, uids and userextras/KEY). The
// request then runs as that user, and the audit log keeps both.
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../../shared/api/errors.ts';
import type { Authorizer, AuthzAttributes } from './authorizer-types.ts';
import { forbidden } from './forbidden.ts';
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  parseServiceAccountUsername,
  serviceAccountGroups,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
} from './user-info.ts';

const EXTRA_PREFIX = 'impersonate-extra-';

function headerValues(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  // Node joins repeated headers with ", " except for a few; kube reads each header line as one value.
  return (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',').map((s) => s.trim())).filter((s) => s !== '');
}

/** True when the request asks to impersonate anyone. */
export function wantsImpersonation(headers: IncomingHttpHeaders): boolean {
  for (const k in headers) if (k.startsWith('impersonate-')) return true;
  return false;
}

/**
 * The user a request acts as: `caller` itself, or the user its impersonation
 * headers name once every part is authorized. Throws kube's 400 for headers
 * that do not make a user and its 403 for what the caller may not impersonate.
 */
export function impersonatedUser(headers: IncomingHttpHeaders, caller: UserInfo, authorizer: Authorizer): UserInfo | undefined {
  if (!wantsImpersonation(headers)) return undefined;
  const username = headerValues(headers['impersonate-user'])[0] ?? '';
  const groups = headerValues(headers['impersonate-group']);
  const uid = headerValues(headers['impersonate-uid'])[0];
  const extra: Record<string, string[]> = {};
  for (const k in headers) {
    if (!k.startsWith(EXTRA_PREFIX)) continue;
    // kube percent-decodes the key (header names cannot carry every character).
    extra[decodeURIComponent(k.slice(EXTRA_PREFIX.length))] = headerValues(headers[k]);
  }
  if (!username && (groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0))
    throw badRequest('requested impersonation is invalid: Impersonate-User is required when impersonating groups, uid or extra');

  const check = (
    attrs: Omit<AuthzAttributes, 'user' | 'verb' | 'resourceRequest' | 'path' | 'apiVersion' | 'subresource'> & { subresource?: string },
  ) => {
    const full: AuthzAttributes = {
      user: caller,
      verb: 'impersonate',
      resourceRequest: true,
      path: '',
      apiVersion: '',
      subresource: '',
      ...attrs,
    };
    const { decision, reason } = authorizer.authorize(full);
    if (decision !== 'allow') throw forbidden(full, reason);
  };
  const sa = parseServiceAccountUsername(username);
  if (sa) check({ apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
  else check({ apiGroup: '', resource: 'users', namespace: '', name: username });
  for (const g of groups) check({ apiGroup: '', resource: 'groups', namespace: '', name: g });
  if (uid !== undefined) check({ apiGroup: 'authentication.k8s.io', resource: 'uids', namespace: '', name: uid });
  for (const [key, values] of Object.entries(extra))
    for (const v of values) check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, namespace: '', name: v });

  // As kube: a ServiceAccount without groups asked for gets its own; everyone gets system:authenticated
  // (system:unauthenticated for the anonymous user).
  const finalGroups = [...groups];
  if (sa && groups.length === 0) finalGroups.push(...serviceAccountGroups(sa.namespace));
  const always = username === ANONYMOUS_USER ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP;
  if (!finalGroups.includes(always)) finalGroups.push(always);
  const user: UserInfo = { username, groups: finalGroups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
