// What a chaos run's timeline is made of: one flat list of timed events
// (faults injected and recovered, checks passing and failing, invariant
// violations, the system's reactions). The experiment runner records them,
// its JSON report carries them, and renderTimelineSvg draws them; the web UI
// can draw the same list.

/** The kinds of event a timeline shows. */
export type TimelineEventType =
  | 'run-started'
  | 'run-finished'
  | 'step'
  | 'fault-injected'
  | 'fault-recovered'
  | 'check-passed'
  | 'check-failed'
  | 'invariant-violated'
  | 'reaction';

/** One event, at a time relative to the start of the run. */
export interface TimelineEvent {
  /** Milliseconds since the run started. */
  at: number;
  type: TimelineEventType;
  /** The fault's target or action, the check's or invariant's name, the Event's reason. */
  name: string;
  /** One line: the supervisor's message, why a check failed, the Event's message. */
  message?: string;
  /** The object involved, e.g. "Pod default/web-1". */
  object?: string;
  /** fault-injected / fault-recovered: pairs an injection with its recovery. */
  faultId?: string;
  /** check-passed: how long after the last fault event before the check it passed. */
  timeToRecoveryMs?: number;
  /** check-*: the check's mode (SOT, EOT, Continuous, OnChaos, Edge, Step); reaction: its source (Event, Pod, Node). */
  mode?: string;
  /** reaction: a Warning Event, a Pod that failed, a Node that went NotReady. */
  warning?: boolean;
}
