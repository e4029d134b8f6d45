// The messages between the apiserver's main thread and its create workers.
import type { UserInfo } from '../auth/user-info.ts';
import type { StatusDetails } from '../../shared/api/errors.ts';
import type { TraceStep } from '../../shared/api/request-trace-types.ts';

/** What a worker is started with. */
export interface CreateWorkerData {
  /** The main thread's resourceVersion placeholder (see storage/serialized-object.ts). */
  placeholder: string;
}

/** A create to prepare. `priorityClasses` is present when they changed since the last request to this worker. */
export interface PrepareMessage {
  id: number;
  group: string;
  version: string;
  plural: string;
  namespace: string;
  /** The request body, transferred. */
  body: Uint8Array;
  contentType: string | undefined;
  fieldValidation: string | null;
  nowMs: number;
  uid: string;
  /** The requesting user (a CSR records it). */
  user?: UserInfo;
  priorityClasses?: string[];
  /** A Pod's: the ServiceAccounts of its namespace, as JSON texts (see admission/snapshot.ts). */
  serviceAccounts?: string[];
  /** The request is traced: the reply lists the admission steps taken. */
  traced?: boolean;
}

/** A prepared object: its JSON with the placeholder as its resourceVersion. */
export interface PreparedMessage {
  id: number;
  json: string;
  name: string;
  generateName?: string;
  warnings: string[];
  /** For a traced request: each admission hook run, as the request trace records it. */
  steps?: TraceStep[];
}

/** The Status the client should get. */
export interface RefusedMessage {
  id: number;
  status: { code: number; reason: string; message: string; details?: StatusDetails };
  /** For a traced request: the admission steps up to the refusal (the plugin that denied it last). */
  steps?: TraceStep[];
}

/** An unexpected error (a bug): the main thread logs it and answers 500. */
export interface FailedMessage {
  id: number;
  failure: string;
}

export type PrepareReply = PreparedMessage | RefusedMessage | FailedMessage;

/**
 * Messages travel in batches, one per event-loop turn: waking a sleeping
 * thread on another core costs ~10 us in a VM, more than preparing a small
 * object, so one wake-up should carry every create that arrived together.
 */
export interface PrepareBatch {
  requests: PrepareMessage[];
}

export type WorkerReply = { ready: true } | { replies: PrepareReply[] };
