// kube's AlwaysAllow authorization mode: every request is allowed. ksim uses
// it only with --insecure-http (a teaching mode that says loudly it is open),
// where there is no authentication to authorize anyway.
import type { Authorizer, RulesResult } from './authorizer-types.ts';

export const ALWAYS_ALLOW: Authorizer = {
  name: 'AlwaysAllow',
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: (): RulesResult => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};
