/** @jsxImportSource preact */
// A RevisionDiff as a table: one row per changed field, old and new values.
import type { RevisionDiff } from '../../shared/api/history-types.ts';
import { valueText } from './format.ts';

/** See the file comment. */
export function DiffTable(props: { diff: RevisionDiff }) {
  const { changes } = props.diff;
  if (!changes.length) return <p class="hint">no field changed</p>;
  return (
    <table class="diff-table">
      <thead>
        <tr>
          <th>field</th>
          <th>before</th>
          <th>after</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.path} class={`op-${c.op}`} data-path={c.path}>
            <td class="path">{c.path}</td>
            <td class="old">{valueText(c.old)}</td>
            <td class="new">{valueText(c.new)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
