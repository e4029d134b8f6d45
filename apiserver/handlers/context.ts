// What every verb handler receives: the store and the process's clock and
// logger (the collaborators), and the parsed request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Store } from '../storage/store.ts';
import type { AdmissionChain } from '../admission/types.ts';
import type { NewObjectPreparer } from './new-object-types.ts';
import type { RequestInfo } from '../request-info.ts';
import type { ResponseFormat, ResponseView } from '../http/codec.ts';
import type { ListPage } from '../http/views.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { Authorizer } from '../auth/authorizer-types.ts';
import type { Authentication } from '../auth/authn/index.ts';
import type { AuditRecord } from '../audit/auditor.ts';
import type { TraceSink } from '../../shared/api/request-trace-types.ts';

/** The apiserver's collaborators, shared by every request. */
export interface ApiContext {
  store: Store;
  log: Logger;
  now: () => Date;
  newUid: () => string;
  /** Mutating and validating admission (for creates, only transactional plugins run inside the transaction). */
  admission: AdmissionChain;
  /** Threads that prepare new objects off the main thread, when there are any. */
  createWorkers?: NewObjectPreparer;
  /** How often open watches that asked for them get a BOOKMARK. */
  bookmarkIntervalMs: number;
  /**
   * The authorizer chain (Node, then RBAC), asked for every request and by
   * the review resources, impersonation and RBAC's escalation checks.
   */
  authorizer: Authorizer;
  /** Authentication: TokenReview asks it, TokenRequest signs with its ServiceAccount key. */
  authentication: Authentication;
  /**
   * The client certificate the apiserver shows the kubelets it proxies to
   * (logs, exec, attach): kubeadm's apiserver-kubelet-client, and the CA that
   * signed the kubelets' serving certificates. Undefined on --insecure-http.
   */
  kubeletClientTls?: { certPem: string; keyPem: string; caPem: string };
}

/** One API request, parsed. */
export interface ApiRequest {
  info: RequestInfo;
  /** Who is asking: the authenticated (or impersonated) user; admission and the reviews read it. */
  user: UserInfo;
  /** The request's audit record, when the audit policy records it: admission annotates it. */
  audit?: AuditRecord;
  query: URLSearchParams;
  contentType: string | undefined;
  format: ResponseFormat;
  view: ResponseView;
  /** Reads the body (size-limited). */
  body(): Promise<Buffer>;
  /** The request's trace when it is recorded: a handler adds what the request path cannot see (a create worker's admission). */
  trace?: TraceSink;
  req: IncomingMessage;
  res: ServerResponse;
}

/** A complete response: the status code and a JSON body. Streaming handlers answer themselves and return undefined. */
export interface ApiResponse {
  status: number;
  json: string;
  /**
   * The JSON body already encoded as UTF-8, sent instead of `json` (then
   * empty). Only for the JSON format; list pages are written this way, into
   * reused memory, because a ~1 MB string costs several fresh copies.
   */
  encoded?: Buffer;
  /** Set by list: the page behind `json`, for the Table and metadata views. */
  list?: ListPage;
  /** Warnings for the client (sent as `Warning: 299 - "..."` headers). */
  warnings?: string[];
}
