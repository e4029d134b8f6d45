// The HTML report: one self-contained file (inline CSS, the SVG timeline
// inline, no script, nothing fetched) with the verdict, the table of checks
// and invariants, the faults, errors and every recorded event.
import { escapeXml as esc, formatDuration, renderTimelineSvg } from '../../../shared/timeline/svg.ts';
import { tableRows, type ExperimentReport } from './report.ts';

const CSS = `
body{font-family:system-ui,sans-serif;margin:24px;color:#1f2933;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff;font-weight:600}
.passed{background:#2e9e5b}.failed,.aborted{background:#d0343a}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #e3e6ea;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#f5f7fa}.bad{color:#d0343a;font-weight:600}.good{color:#2e9e5b}
.meta{color:#52606d;font-size:13px}svg{max-width:100%;height:auto;border:1px solid #e3e6ea}
`;

export function renderHtmlReport(r: ExperimentReport): string {
  const rows = tableRows(r)
    .map((row) => {
      const bad = /^(FAILED|VIOLATED)/.test(row[2]);
      return `<tr>${row.map((c, i) => `<td${i === 2 ? ` class="${bad ? 'bad' : 'good'}"` : ''}>${esc(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  const faults = r.faults
    .map(
      (f) =>
        `<tr><td>${esc(formatDuration(f.injectedAt))}</td><td>${f.recoveredAt === undefined ? '-' : esc(formatDuration(f.recoveredAt))}</td><td>${esc(f.step)}</td><td>${esc(f.faultId ?? '')}</td><td>${esc(f.error ?? f.message ?? '')}</td><td>${esc(f.affected.join(', '))}</td></tr>`,
    )
    .join('\n');
  const events = r.events
    .map(
      (e) =>
        `<tr><td>${esc(formatDuration(e.at))}</td><td>${esc(e.type)}${e.mode ? ` (${esc(e.mode)})` : ''}</td><td${e.type.endsWith('failed') || e.type === 'invariant-violated' || e.warning ? ' class="bad"' : ''}>${esc(e.name)}</td><td>${esc(e.object ?? '')}</td><td>${esc(e.message ?? '')}</td></tr>`,
    )
    .join('\n');
  const svg = renderTimelineSvg(r.events, { durationMs: r.durationMs, title: `${r.experiment} (seed ${r.seed})` });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(`ksim experiment ${r.experiment}: ${r.verdict}`)}</title>
<style>${CSS}</style></head>
<body>
<h1>Experiment ${esc(r.experiment)} <span class="verdict ${r.verdict}">${esc(r.verdict.toUpperCase())}</span></h1>
<p class="meta">${r.description ? `${esc(r.description)}<br>` : ''}${r.file ? `${esc(r.file)} · ` : ''}seed ${r.seed} · started ${esc(r.startedAt)} · ${esc(formatDuration(r.durationMs))} · ${r.faults.length} fault(s)</p>
<h2>Timeline</h2>
${svg}
<h2>Checks and invariants</h2>
<table><tr><th>Check</th><th>Mode</th><th>Result</th><th>Time to recovery</th><th>Detail</th></tr>
${rows}
</table>
${r.errors.length ? `<h2>Errors</h2><ul>${r.errors.map((e) => `<li class="bad">${esc(e)}</li>`).join('')}</ul>` : ''}
<h2>Faults</h2>
<table><tr><th>Injected</th><th>Recovered</th><th>Step</th><th>Fault id</th><th>Message</th><th>Affected</th></tr>
${faults}
</table>
<h2>Events</h2>
<table><tr><th>Time</th><th>Type</th><th>Name</th><th>Object</th><th>Message</th></tr>
${events}
</table>
${r.droppedReactions ? `<p class="meta">${r.droppedReactions} more reactions were not kept.</p>` : ''}
</body></html>
`;
}
