/** @jsxImportSource preact */
// A FieldBlame as a table: each leaf field, its value, and the write that last set it.
import type { FieldBlame } from '../../shared/api/history-types.ts';
import { valueText, writerText, writerTitle } from './format.ts';

/** See the file comment. */
export function BlameTable(props: { blame: FieldBlame }) {
  return (
    <table class="blame-table">
      <thead>
        <tr>
          <th>field</th>
          <th>value</th>
          <th>revision</th>
          <th>set by</th>
        </tr>
      </thead>
      <tbody>
        {props.blame.fields.map((f) => (
          <tr key={f.path} data-path={f.path}>
            <td class="path">{f.path}</td>
            <td>{valueText(f.value, 60)}</td>
            <td>{f.revision}</td>
            <td title={writerTitle(f.writer)}>
              {f.manager ? `${f.manager} · ` : ''}
              {writerText(f.writer)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
