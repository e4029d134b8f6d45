// Resources served from another resource's storage, and how their objects
// convert between the two. kube has one such pair among the kinds ksim
// serves: events.k8s.io/v1 Events are stored as core/v1 Events, so an Event
// written through either API is read, listed and watched through both; and
// autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2 ones.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { CoreEventJSON as CoreEvent, EventsV1JSON as EventsV1Event } from './kinds/misc.ts';
import { coreToEventsV1, eventsV1ToCore } from './kinds/event-conversion.ts';
import type { KubeObject } from './object.ts';
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler as HPAv2 } from 'kubernetes-types/autoscaling/v2.js';
import { hpaV1ToV2, hpaV2ToV1 } from './kinds/hpa-conversion.ts';
import { defaultHPAv2 } from './kinds/hpa.ts';

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
  // Same group and plural as its storage (autoscaling/v2): keyed with its version.
  'autoscaling/v1/horizontalpodautoscalers': {
    fromStorage: (stored) => hpaV2ToV1(stored as HPAv2) as KubeObject,
    toStorage: (served) => {
      const v2 = hpaV1ToV2(served as HPAv1);
      defaultHPAv2(v2);
      return v2 as KubeObject;
    },
  },
};

/** The conversion of `rt` (undefined when it is stored as it is served). */
export function storageConversion(rt: Pick<ResourceType, 'group' | 'version' | 'plural'>): StorageConversion | undefined {
  return CONVERSIONS[`${rt.group}/${rt.version}/${rt.plural}`] ?? CONVERSIONS[`${rt.group}/${rt.plural}`];
}
