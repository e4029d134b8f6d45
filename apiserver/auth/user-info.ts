// Who is making a request, as authentication found it: kube's user.Info, in
// the shape authentication.k8s.io/v1 UserInfo has on the wire (so a
// SelfSubjectReview or TokenReview can answer it as it is).
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** kube's well-known user and group names. */
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const NODES_GROUP = 'system:nodes';
export const MASTERS_GROUP = 'system:masters';
export const NODE_USER_PREFIX = 'system:node:';
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** The user of a request that carries no credentials. */
export const ANONYMOUS: UserInfo = Object.freeze({ username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] });

/**
 * kube adds system:authenticated to every authenticated user that is not
 * anonymous (authenticator.WrapAudienceAgnosticRequest / group adder).
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER || user.groups.includes(AUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/** The username of ServiceAccount `name` in `namespace`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The groups of ServiceAccount users in `namespace` (kube's MakeGroupNames, without system:authenticated). */
export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** `{namespace, name}` of a ServiceAccount username, or undefined for any other user. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const rest = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (rest.length !== 2 || !rest[0] || !rest[1]) return undefined;
  return { namespace: rest[0], name: rest[1] };
}

/** The node name of a node's identity (`system:node:NAME` in `system:nodes`), or undefined. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  const name = user.username.slice(NODE_USER_PREFIX.length);
  return name || undefined;
}
