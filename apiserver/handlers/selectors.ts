// Builds the object filter of a list or watch from its labelSelector and
// fieldSelector parameters, refusing fields kube does not index for the kind.
import { badRequest } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { ObjectMatcher, StoredObject } from '../storage/types.ts';
import { matchesLabels, parseLabelSelector } from '../../shared/labels/label-selector.ts';
import { exactMatch, fieldSelectorFields, matchesFields, parseFieldSelector } from '../../shared/labels/field-selector.ts';

/** A parsed filter: the predicate, and what it pins exactly (for index use). */
export interface ObjectFilter {
  matches?: ObjectMatcher;
  /** Set when the field selector requires metadata.name=X. */
  name?: string;
  /** Set when the field selector requires metadata.namespace=X. */
  namespace?: string;
}

/** Parses the selectors of `query` for resource `rt`; throws 400 on bad syntax or unsupported fields. */
export function buildFilter(rt: ResourceType, query: URLSearchParams): ObjectFilter {
  const labelText = query.get('labelSelector') ?? '';
  const fieldText = query.get('fieldSelector') ?? '';
  const tests: ObjectMatcher[] = [];
  const filter: ObjectFilter = {};
  if (labelText.trim()) {
    let sel;
    try {
      sel = parseLabelSelector(labelText);
    } catch (err) {
      throw badRequest((err as Error).message);
    }
    tests.push((obj) => matchesLabels(sel, obj?.metadata?.labels));
  }
  if (fieldText.trim()) {
    let sel;
    try {
      sel = parseFieldSelector(fieldText);
    } catch (err) {
      throw badRequest((err as Error).message);
    }
    for (const field of fieldSelectorFields(sel)) {
      if (field !== 'metadata.name' && field !== 'metadata.namespace' && !rt.selectableFields[field]) {
        throw badRequest(`field label not supported: ${field}`);
      }
    }
    filter.name = exactMatch(sel, 'metadata.name');
    filter.namespace = rt.namespaced ? exactMatch(sel, 'metadata.namespace') : undefined;
    const get = (obj: StoredObject) => (field: string) => {
      if (field === 'metadata.name') return obj?.metadata?.name ?? '';
      if (field === 'metadata.namespace') return obj?.metadata?.namespace ?? '';
      return rt.selectableFields[field]?.(obj);
    };
    tests.push((obj) => matchesFields(sel, get(obj)));
  }
  if (tests.length === 1) filter.matches = tests[0];
  else if (tests.length > 1) filter.matches = (obj) => tests.every((t) => t(obj));
  return filter;
}
