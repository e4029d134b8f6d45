// The labels package's public surface: label selectors (text and
// metav1.LabelSelector) and field selectors.
export * from './label-selector.ts';
export * from './field-selector.ts';
export { isLabelKey, isLabelValue } from './validation.ts';
