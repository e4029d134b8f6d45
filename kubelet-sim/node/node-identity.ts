// Each simulated node's identity: requests a node makes (its Node, Lease,
// Pod status, Events, TokenRequests, SubjectAccessReviews) go as
// system:node:NAME in system:nodes, by impersonation over the process's one
// connection pool, so that the Node authorizer and NodeRestriction see the
// node's own name without a TLS connection per node. The process's own
// credentials (system:ksim:kubelet-sim) must be allowed to impersonate them.
import type { Impersonation, KubeClient } from '../../shared/client/kube-client.ts';

/** kube's user for the kubelet of node `name` (what a kubelet client certificate says). */
export function nodeUser(name: string): Impersonation {
  return { username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] };
}

/** One client view per node, made once; with `impersonate` false every node uses the process's identity. */
export class NodeClients {
  private readonly views = new Map<string, KubeClient>();

  constructor(
    private readonly base: KubeClient,
    private readonly impersonate = true,
  ) {}

  /** The client node `name` makes its requests with. */
  for(name: string): KubeClient {
    if (!this.impersonate) return this.base;
    let c = this.views.get(name);
    if (!c) {
      c = this.base.as(nodeUser(name));
      this.views.set(name, c);
    }
    return c;
  }
}
