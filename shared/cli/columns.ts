// Rows as kubectl prints a table: each column padded to its widest cell,
// three spaces between columns, no trailing blanks; one line per row.

/** The table's text, a newline after each row. */
export function formatColumns(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map(
      (r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
          .join('   ')
          .trimEnd() + '\n',
    )
    .join('');
}
