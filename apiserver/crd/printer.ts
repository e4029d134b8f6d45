// Tables of custom resources (kube's customresource tableconvertor): Name,
// then the version's additionalPrinterColumns, each cell the value its
// jsonPath selects typed as the column says (dates as ages); a version
// without columns gets kube's default Age column.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { humanDuration, parseTime } from '../printers/duration.ts';
import { column, nameColumn, type Cell, type PrintableObject, type Printer, type TableColumnDefinition } from '../printers/types.ts';
import type { PrinterColumn } from './crd.ts';
import { evalJsonPath } from './jsonpath.ts';
import { customResourceInfo } from './registry.ts';

const DEFAULT_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];

/** A cell as kube's cellForJSONValue makes it; null when the value does not fit the column's type. */
function cell(type: string, v: unknown, now: Date): Cell | null {
  switch (type) {
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      const t = parseTime(v);
      return t === undefined ? null : humanDuration(now.getTime() - t);
    }
    default:
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  }
}

const printers = new WeakMap<ResourceType, Printer>();

/** The printer of a custom resource, or undefined when `rt` is not one. */
export function customResourcePrinter(rt: Pick<ResourceType, 'group' | 'kind'>): Printer | undefined {
  const info = customResourceInfo(rt as ResourceType);
  if (!info) return undefined;
  let p = printers.get(info.rt);
  if (!p) {
    const cols = info.version.additionalPrinterColumns?.length ? info.version.additionalPrinterColumns : DEFAULT_COLUMNS;
    const columns: TableColumnDefinition[] = [
      nameColumn(),
      ...cols.map((c) =>
        column(
          c.name ?? '',
          c.type ?? 'string',
          c.description || `The value at ${c.jsonPath ?? ''} (a column of the CustomResourceDefinition).`,
          {
            format: c.format,
            priority: c.priority,
          },
        ),
      ),
    ];
    p = {
      columns,
      row(obj: PrintableObject, ctx) {
        const cells: (Cell | null)[] = [obj.metadata?.name ?? ''];
        for (const c of cols) {
          const [v] = evalJsonPath(obj, c.jsonPath ?? '');
          cells.push(v === undefined || v === null ? null : cell(c.type ?? 'string', v, ctx.now));
        }
        // kube sends a missing value as a null cell (kubectl prints <none>).
        return { cells: cells as Cell[] };
      },
    };
    printers.set(info.rt, p);
  }
  return p;
}
