// The meta.k8s.io/v1 Table shapes the apiserver returns for
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, and the small
// Printer contract each kind's file implements.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** One column of a Table, as kube serialises it: every field is always present. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: "string", "integer", "number", "boolean" or "date". */
  type: string;
  /** "name" marks the primary column; "" otherwise. */
  format: string;
  description: string;
  /** 0 = always shown; 1 = shown by kubectl only with -o wide. */
  priority: number;
}

/** A condition attached to a row (kube sets Completed on finished pods). */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** A cell value: kube emits strings, int64 numbers and booleans. */
export type Cell = string | number | boolean;

/** One row: the cells in column order, optional conditions and the embedded object. */
export interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

/** The list metadata a Table carries over from the list (or the one object) it renders. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** meta.k8s.io/v1 Table. */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** What a printer may read besides the object: the injected clock. */
export interface PrintContext {
  now: Date;
}

/** Cells (and row conditions) for one object of a kind. */
export interface PrintedRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
}

/** An object of any kind as a printer receives it: each kind's printer reads it as its own kind. */
export interface PrintableObject {
  metadata?: ObjectMeta;
}

/**
 * A kind's printer: its columns (all of them; kube's server-side printing is
 * always "wide" and kubectl hides priority-1 columns itself) and a function
 * producing one row's cells in the same order. `Kind` is the kubernetes-types
 * type of the objects it prints.
 */
export interface Printer<Kind extends PrintableObject = PrintableObject> {
  columns: TableColumnDefinition[];
  row(obj: Kind, ctx: PrintContext): PrintedRow;
}

/** Builds a column definition; `name` columns get format "name". */
export function column(
  name: string,
  type: string,
  description: string,
  opts: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** The Name column every built-in printer starts with. */
export const nameColumn = (): TableColumnDefinition =>
  column('Name', 'string', "Name must be unique within a namespace; the object's identifier.", { format: 'name' });

/** The Age column (creationTimestamp rendered as a human duration). */
export const ageColumn = (): TableColumnDefinition =>
  column('Age', 'string', 'Time since the object was created (metadata.creationTimestamp).');

/** A priority-1 (wide only) column. */
export function wide(c: TableColumnDefinition): TableColumnDefinition {
  return { ...c, priority: 1 };
}
