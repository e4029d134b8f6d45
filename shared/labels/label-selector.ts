// Label selectors in one import: parsing the ?labelSelector= text, converting
// and printing metav1.LabelSelector, and matching label sets.
export { everything, isEmptySelector, labelExactMatch, labelSelectorString, matchesLabels, nothing, selectorFromSet } from './selector.ts';
export type { LabelSelector } from './selector.ts';
export { parseLabelSelector } from './parse-label-selector.ts';
export { formatLabelSelector, selectorFromLabelSelector } from './meta-selector.ts';
export { formatRequirement, newRequirement } from './requirement.ts';
export type { Operator, Requirement } from './requirement.ts';
