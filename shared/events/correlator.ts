// What client-go's EventCorrelator decides for each event before it reaches
// the API server (tools/record/events_cache.go), with kube's defaults:
//
// - aggregation: once an object has had 10 events from one source with the
//   same type and reason but different messages within 10 minutes, further
//   ones become a single "(combined from similar events): ..." event;
// - de-duplication: an event identical to one already written (same source,
//   object, type, reason and message) bumps that Event's count instead of
//   creating another;
// - spam filter: a source may write 25 events about one object, then one
//   more every 5 minutes; the rest are dropped.
//
// So a ReplicaSet that creates 1,000 Pods writes 25 Events about it, not
// 1,000, as on a real cluster. Pure and clock-driven, so it is unit-tested.
import { TokenBucket } from '../client/rate-limiter.ts';
import { LruCache } from '../util/lru-cache.ts';

const CACHE_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
const COMBINED_PREFIX = '(combined from similar events): ';

/** An event as a recorder is asked to write it. */
export interface EventInput {
  source: { component: string; host?: string };
  involvedObject: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; fieldPath?: string };
  type: string;
  reason: string;
  message: string;
  reportingController?: string;
  reportingInstance?: string;
}

/** What to send: a new Event, a count bump of an existing one, or nothing. */
export type EventDecision =
  | { action: 'create'; name: string; message: string; firstTimestamp: number }
  | { action: 'patch'; name: string; message: string; count: number; firstTimestamp: number }
  | { action: 'skip' };

interface AggregateRecord {
  messages: Set<string>;
  last: number;
}

interface Observation {
  count: number;
  name: string;
  firstTimestamp: number;
}

const join = (parts: (string | undefined)[]) => parts.map((p) => p ?? '').join('\u0000');

/** See the file comment. */
export class EventCorrelator {
  private readonly aggregates = new LruCache<AggregateRecord>(CACHE_ENTRIES);
  private readonly observations = new LruCache<Observation>(CACHE_ENTRIES);
  private readonly spam = new LruCache<TokenBucket>(CACHE_ENTRIES);

  /** `now` in milliseconds; `uniqueName(objectName, nowMs)` names a new Event. */
  constructor(
    private readonly now: () => number,
    private readonly uniqueName: (objectName: string, nowMs: number) => string,
  ) {}

  decide(e: EventInput): EventDecision {
    const now = this.now();
    const o = e.involvedObject;
    const objectKey = [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion];

    // Aggregation (EventAggregate).
    let message = e.message;
    let key = join([...objectKey.slice(0, 5), o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
    const aggregateKey = join([...objectKey, e.type, e.reason, e.reportingController, e.reportingInstance]);
    let record = this.aggregates.get(aggregateKey);
    if (!record || now - record.last > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), last: now };
    record.messages.add(e.message);
    record.last = now;
    this.aggregates.set(aggregateKey, record);
    if (record.messages.size >= AGGREGATE_MAX_EVENTS) {
      // Keep the set from growing past the threshold, as kube does (PopAny).
      record.messages.delete(record.messages.values().next().value as string);
      message = COMBINED_PREFIX + e.message;
      key = aggregateKey;
    }

    // De-duplication (eventObserve): recorded even when the spam filter then drops the event.
    const seen = this.observations.get(key);
    const decision: EventDecision = seen
      ? { action: 'patch', name: seen.name, message, count: seen.count + 1, firstTimestamp: seen.firstTimestamp }
      : { action: 'create', name: this.uniqueName(o.name ?? '', now), message, firstTimestamp: now };
    this.observations.set(key, { count: seen ? seen.count + 1 : 1, name: decision.name, firstTimestamp: decision.firstTimestamp });

    // Spam filter (EventSourceObjectSpamFilter).
    const spamKey = join(objectKey);
    let bucket = this.spam.get(spamKey);
    if (!bucket) bucket = new TokenBucket(SPAM_QPS, SPAM_BURST, this.now);
    const allowed = bucket.tryAccept();
    this.spam.set(spamKey, bucket);
    return allowed ? decision : { action: 'skip' };
  }
}
