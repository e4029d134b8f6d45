// The 403 kube-apiserver answers when no authorizer allows a request
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
// forbiddenMessage, then apierrors.NewForbidden): it names the user, the verb
// and what was asked, and appends the authorizers' reason when there is one.
import { forbidden as forbiddenStatus, qualifiedResource, type StatusError } from '../../shared/api/errors.ts';
import { goQuote } from '../../shared/patch/go-format.ts';
import type { AuthzAttributes } from './authorizer-types.ts';

/** kube's forbiddenMessage. */
export function forbiddenMessage(attrs: AuthzAttributes): string {
  const user = goQuote(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const what = `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)}`;
  return attrs.namespace ? `${what} in the namespace ${goQuote(attrs.namespace)}` : `${what} at the cluster scope`;
}

/** The StatusError for a request no authorizer allowed; `reason` is the chain's (may be empty). */
export function forbidden(attrs: AuthzAttributes, reason: string): StatusError {
  const why = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  const group = attrs.resourceRequest ? attrs.apiGroup : '';
  const resource = attrs.resourceRequest ? attrs.resource : '';
  const name = attrs.resourceRequest ? attrs.name : '';
  let message: string;
  if (!group && !resource) message = `forbidden: ${why}`;
  else if (!name) message = `${qualifiedResource({ group, resource })} is forbidden: ${why}`;
  else message = `${qualifiedResource({ group, resource })} ${goQuote(name)} is forbidden: ${why}`;
  const details: { group?: string; kind?: string; name?: string } = {};
  if (group) details.group = group;
  if (resource) details.kind = resource;
  if (name) details.name = name;
  return forbiddenStatus(message, details);
}
