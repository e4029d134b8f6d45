// Resources served from another resource's storage, and how their objects
// convert between the two. kube has one such pair among the kinds ksim
// serves: events.k8s.io/v1 Events are stored as core/v1 Events, so an Event
// written through either API is read, listed and watched through both.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { CoreEventJSON as CoreEvent, EventsV1JSON as EventsV1Event } from './kinds/misc.ts';
import { coreToEventsV1, eventsV1ToCore } from './kinds/event-conversion.ts';
import type { KubeObject } from './object.ts';

/** How a resource's objects become its storage's, and back. */
export interface StorageConversion {
  /** The object as this resource serves it, from the stored one. */
  fromStorage(stored: KubeObject): KubeObject;
  /** The object to store, from the one this resource serves. */
  toStorage(served: Partial<KubeObject>): KubeObject;
}

const CONVERSIONS: Record<string, StorageConversion> = {
  'events.k8s.io/events': {
    // Both carry the metadata they are given: a stored object's, a written one's.
    fromStorage: (stored) => coreToEventsV1(stored as CoreEvent) as KubeObject,
    toStorage: (served) => eventsV1ToCore(served as EventsV1Event),
  },
};

/** The conversion of `rt` (undefined when it is stored as it is served). */
export function storageConversion(rt: Pick<ResourceType, 'group' | 'plural'>): StorageConversion | undefined {
  return CONVERSIONS[`${rt.group}/${rt.plural}`];
}
