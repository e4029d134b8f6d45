// What the request path calls while a request fault is set (only then:
// the caller tests apiserverFaults.requestFaults first): wait the matching
// faults' latency, then refuse the request with kube's Status if a fault's
// draw says so. A refusal is thrown as a StatusError, so that it is answered,
// counted and audited like any other error of the request.
import type { IncomingMessage } from 'node:http';
import type { AuthzAttributes } from '../auth/authorizer-types.ts';
import type { RequestInfo } from '../request-info.ts';
import { apiserverFaults } from './fault-table.ts';
import { injectedError } from './fault-status.ts';
import type { RequestTarget } from './match.ts';
import { countInjected } from './metrics.ts';

/** A request as the faults see it, with what a Status names. */
export type FaultTarget = RequestTarget & { name?: string; group?: string };

const userAgentOf = (req: IncomingMessage): string | undefined => {
  const ua = req.headers['user-agent'];
  return typeof ua === 'string' ? ua : undefined;
};

/** An API request (api-handler.ts) as the faults see it. */
export function requestTarget(info: RequestInfo, user: string | undefined, req: IncomingMessage): FaultTarget {
  return {
    userAgent: userAgentOf(req),
    user,
    verb: info.verb,
    resource: info.resource.plural,
    subresource: info.subresource,
    name: info.name,
    group: info.resource.group,
  };
}

/** An upgraded request (a WebSocket watch, exec, port-forward) by its authorization attributes. */
export function attributesTarget(attrs: AuthzAttributes, req: IncomingMessage): FaultTarget {
  return {
    userAgent: userAgentOf(req),
    user: attrs.user.username,
    verb: attrs.verb,
    resource: attrs.resource,
    subresource: attrs.subresource,
    name: attrs.name,
    group: attrs.apiGroup,
  };
}

/** Delays, then maybe refuses, one request; resolves when it may be served. */
export async function injectRequestFaults(target: FaultTarget): Promise<void> {
  const verdict = apiserverFaults.request(target);
  if (verdict.delayMs > 0) {
    countInjected('latency');
    await new Promise((resolve) => setTimeout(resolve, verdict.delayMs));
  }
  if (verdict.error) {
    countInjected('error');
    throw injectedError(verdict.error.code, verdict.error.faultId, target);
  }
}
