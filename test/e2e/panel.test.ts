/**
 * The side panel in a real VS Code: opened from the palette, its Causal tab follows the
 * editor's cursor and shows the same curve the server modules compute for that line; the
 * webview loads under its content security policy without a single violation.
 *
 *   . scripts/tools-env.sh && node --test out/test/e2e/panel.test.js
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { claimText, impactText } from '../../server/src/causal/claims';
import { compareCurves, computeCurves } from '../../server/src/causal/curves';
import { fitRuns, predict } from '../../server/src/fit';
import { readProfileFile } from '../../server/src/import';
import { readScalingCsv } from '../../server/src/import/scalingCsv';
import { loadCommTable } from '../../server/src/network/commTable';
import { DEFAULT_TRACED_NETWORK, identityWarning } from '../../server/src/pem';
import { formatSeconds, formatSecondsRange } from '../../webview/src/format';
import { repoRoot } from '../vscode/codeServer';
import { withWorkbench } from './workbench';

const SAMPLES = path.join(repoRoot, 'samples');
const PANEL_COMMAND = 'Causal Lens: Open What-if and Scaling Panel';
const SCALING_CSV = 'matmul-N.scaling.csv';
const WHATIF_TRACE = 'halo-4';
const DAMAGED_TRACE = path.join(SAMPLES, 'mpi', 'traces', 'halo-4-damaged-e2e');
/** A calibration measured three times on this machine (each point's extremes kept), in the workspace while the test runs. */
const SPREAD_TABLE = path.join(SAMPLES, 'mpi', 'comm-table-spread-e2e.json');

interface WhatIfJson {
  measuredSeconds: number;
  scenarios: { placement: string; predictedSeconds: number; tableSpread?: { lowSeconds: number; highSeconds: number } }[];
}

function whatIfCli(trace: string, flags: string[]): WhatIfJson {
  const cli = path.join(repoRoot, 'out', 'server', 'src', 'cli', 'main.js');
  const run = spawnSync(process.execPath, [cli, 'whatif', '--json', trace, ...flags], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as WhatIfJson;
}

test('the panel opens from the palette; the Causal tab follows the cursor, the Scaling tab fits the sample runs, the What-if tab predicts the sample trace as the CLI does and lists the problems of a damaged trace', { timeout: 300_000 }, async (t) => {
  const profile = await readProfileFile(path.join(SAMPLES, 'pipeline', 'profile.coz'));
  const curves = computeCurves(profile)
    .filter((c) => c.status.kind === 'curve' && c.target.kind === 'line' && path.basename(c.target.path) === 'pipeline.c')
    .sort(compareCurves);
  const best = curves[0];
  assert.ok(best && best.target.kind === 'line', 'the sample profile has a curve on pipeline.c');
  const line = best.target.line;

  // A copy of the halo trace with one event file cut short, in the workspace while the test runs.
  fs.rmSync(DAMAGED_TRACE, { recursive: true, force: true });
  fs.cpSync(path.join(SAMPLES, 'mpi', 'traces', WHATIF_TRACE), DAMAGED_TRACE, { recursive: true });
  const events = path.join(DAMAGED_TRACE, 'traces', '2.evt');
  fs.truncateSync(events, Math.floor(fs.statSync(events).size * 0.6));
  t.after(() => fs.rmSync(DAMAGED_TRACE, { recursive: true, force: true }));
  // Without its host, so that the sample trace's host keeps its own table as "Recorded with".
  const { host: _host, ...spreadTable } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'network', 'comm-table-repeat3.json'), 'utf8'));
  fs.writeFileSync(SPREAD_TABLE, JSON.stringify(spreadTable));
  t.after(() => fs.rmSync(SPREAD_TABLE, { force: true }));

  await withWorkbench(SAMPLES, 'panel-causal', async (workbench) => {
    const cspViolations: string[] = [];
    workbench.page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    await workbench.openFile('pipeline/pipeline.c');
    await workbench.waitForLens(/^Causal: /);
    await workbench.goToLine(line);
    await workbench.runCommand(PANEL_COMMAND);
    const panel = workbench.webview();
    await panel.locator('vscode-tab-header[data-tab="causal"]').click();
    const heading = panel.locator('#causal-line');
    await heading.filter({ hasText: `pipeline.c:${line}` }).waitFor({ timeout: 60_000 });
    const summary = await panel.locator('#causal-summary').innerText();
    assert.ok(
      summary.includes(`${best.progressPoint}: ${claimText(best)} · ${impactText(best)}`),
      `the panel's summary "${summary}" carries the server's claim for line ${line}`,
    );
    assert.ok(await panel.locator('#causal-chart').isVisible(), 'the curve is drawn');
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-causal')}`);

    // Scaling: fit the sample run table and extrapolate, as the CLI's module does.
    await panel.locator('vscode-tab-header[data-tab="scaling"]').click();
    await panel.locator('#scaling-csv').filter({ hasText: SCALING_CSV }).waitFor({ timeout: 30_000 });
    // A value that cannot be used is said, and nothing is fitted.
    await panel.locator('#scaling-predict input').fill('-5 1024');
    await panel.locator('#scaling-predict input').press('Enter');
    await panel.locator('#scaling-fit').click();
    assert.equal(await panel.locator('#scaling-input-error').innerText({ timeout: 10_000 }), 'Predict at: "-5" is not a positive number.');
    await panel.locator('#scaling-predict input').fill('1024');
    await panel.locator('#scaling-predict input').press('Enter');
    await panel.locator('#scaling-fit').click();
    const model = await panel.locator('#scaling-model').innerText({ timeout: 60_000 });
    const table = await readScalingCsv(path.join(SAMPLES, 'scaling', SCALING_CSV));
    const fitted = fitRuns(table.runs, { parameter: table.parameter });
    assert.equal(model.trim(), fitted.formula, 'the panel shows the model the fit module computes');
    const [expected] = predict(fitted, [1024]);
    const row = await panel.locator('#scaling-predictions tbody tr').first().locator('td').allInnerTexts();
    assert.deepEqual(row, ['1024', expected.y.toPrecision(6), expected.low.toPrecision(6), expected.high.toPrecision(6)]);
    assert.ok(await panel.locator('#scaling-chart').isVisible(), 'the fit is drawn');
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-scaling')}`);

    // What-if: the sample trace on 1 and 2 nodes (the defaults), as `causal-lens whatif` predicts it.
    await panel.locator('vscode-tab-header[data-tab="whatif"]').click();
    await panel.locator('#whatif-trace').filter({ hasText: WHATIF_TRACE }).waitFor({ timeout: 30_000 });
    const pickTrace = (name: string) =>
      panel.locator('#whatif-trace').evaluate((select, wanted) => {
        const option = [...select.querySelectorAll('vscode-option')].find((o) => o.textContent?.trim().endsWith(`/${wanted}/traces.otf2`));
        if (!option) throw new Error(`no ${wanted} trace in the list`);
        (select as unknown as { value: string }).value = option.getAttribute('value') ?? '';
        select.dispatchEvent(new Event('change'));
      }, name);
    await pickTrace(WHATIF_TRACE);
    // The sample was recorded on the host samples/mpi/comm-table.json was measured on: it is replayed with that table.
    const machineTable = path.join(SAMPLES, 'mpi', 'comm-table.json');
    const recordedWith = () => panel.locator('#whatif-traced-network').evaluate((select) => (select as unknown as { value: string }).value);
    assert.equal(await recordedWith(), machineTable, 'Recorded with: the table of the trace\'s host');
    await panel.locator('#whatif-run').click();
    await panel.locator('#whatif-table').waitFor({ timeout: 120_000 });
    const trace = path.join(SAMPLES, 'mpi', 'traces', WHATIF_TRACE, 'traces.otf2');
    const rows = await panel.locator('#whatif-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const recorded = whatIfCli(trace, ['--placement', '4/1', '--placement', '4/2', '--traced-network', machineTable]);
    assert.deepEqual(
      rows.map((cells) => [cells[0].replace(/^★ /, '').split(' · ')[0], cells[1]]),
      recorded.scenarios.map((s) => [s.placement, formatSeconds(s.predictedSeconds)]),
      "the panel shows the CLI's predictions with that table",
    );
    assert.match(await panel.locator('#whatif-measured').innerText(), new RegExp(`Measured: ${formatSeconds(recorded.measuredSeconds).replace('.', '\\.')}`));
    assert.ok(await panel.locator('#whatif-time-chart').isVisible(), 'the predictions are charted');
    // Its ranks sharing a core take it in turns (the table has the scheduler's slice): a note. The
    // sample's 4/2 is its traced configuration, whose replay is checked against the run: a warning.
    const texts = async (list: string) => (await panel.locator(`${list} li`).allInnerTexts()).map((text) => text.trim());
    const [turns] = await texts('#whatif-notes');
    assert.match(turns, /^ranks sharing a core take it in turns/);
    const machineIdentity = identityWarning(recorded.scenarios[1].predictedSeconds, recorded.measuredSeconds, loadCommTable(machineTable).name);
    assert.deepEqual(await texts('#whatif-warnings'), machineIdentity ? [machineIdentity] : []);
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-whatif')}`);

    // A table measured three times: each prediction's range over its points' fastest and slowest
    // measurements (the checkbox is on by default), as the CLI's --spread gives it.
    assert.equal(rows[0][2], '—', 'a table measured once has no spread');
    await panel.locator('#whatif-traced-network').evaluate((select, table) => {
      (select as unknown as { value: string }).value = table;
      select.dispatchEvent(new Event('change'));
    }, SPREAD_TABLE);
    await panel.locator('#whatif-run').click();
    const spreadCells = panel.locator('#whatif-table tbody tr td:nth-child(3)');
    await spreadCells.filter({ hasNotText: '—' }).first().waitFor({ timeout: 120_000 });
    const spreadRows = await panel.locator('#whatif-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const spread = whatIfCli(trace, ['--placement', '4/1', '--placement', '4/2', '--traced-network', SPREAD_TABLE, '--spread']);
    assert.deepEqual(
      spreadRows.map((cells) => [cells[1], cells[2]]),
      spread.scenarios.map((s) => [formatSeconds(s.predictedSeconds), formatSecondsRange(s.tableSpread!.lowSeconds, s.tableSpread!.highSeconds)]),
      "the panel shows the CLI's ranges over the table's spread",
    );
    await panel.locator('#whatif-table').scrollIntoViewIfNeeded();
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-whatif-spread')}`);

    // The server's assumed table instead, named as the server names it: no turns, and a replay
    // farther from the run, as the CLI without --traced-network predicts.
    assert.equal((await panel.locator('#whatif-traced-network vscode-option').first().textContent())?.trim(), DEFAULT_TRACED_NETWORK.name);
    await panel.locator('#whatif-traced-network').evaluate((select) => {
      (select as unknown as { value: string }).value = '';
      select.dispatchEvent(new Event('change'));
    });
    await panel.locator('#whatif-run').click();
    await panel.locator('#whatif-notes').waitFor({ state: 'detached', timeout: 120_000 });
    const assumed = whatIfCli(trace, ['--placement', '4/1', '--placement', '4/2']);
    const assumedRows = await panel.locator('#whatif-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
    assert.deepEqual(assumedRows, assumed.scenarios.map((s) => formatSeconds(s.predictedSeconds)), "the panel shows the CLI's predictions with the assumed table");
    assert.deepEqual(await texts('#whatif-warnings'), [identityWarning(assumed.scenarios[1].predictedSeconds, assumed.measuredSeconds, DEFAULT_TRACED_NETWORK.name)]);

    // A master that deals tasks by MPI_ANY_SOURCE: the panel says they are dealt anew.
    await pickTrace('master_worker-3');
    await panel.locator('#whatif-run').click();
    await panel.locator('#whatif-notes').filter({ hasText: /rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2: in each prediction a task goes to the worker that asks first/ }).waitFor({ timeout: 120_000 });
    assert.equal(await panel.locator('#whatif-problems').count(), 0, 'the sample trace has no problem');
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-whatif-dealt')}`);

    // A damaged trace: its problems, each naming the file and offset, above the prediction from the rest.
    await pickTrace(path.basename(DAMAGED_TRACE));
    await panel.locator('#whatif-run').click();
    await panel.locator('#whatif-problems').waitFor({ timeout: 120_000 });
    assert.match(await panel.locator('#whatif-problems').innerText(), /problems?: the prediction uses what could be read and replayed/);
    assert.match(await panel.locator('#whatif-problems li').first().innerText(), /2\.evt @\d+: /);
    assert.ok(await panel.locator('#whatif-table tbody tr').count() > 0, 'the rest is predicted');
    t.diagnostic(`screenshot: ${await workbench.screenshot('panel-whatif-problems')}`);

    // What was typed and cannot be used is said, and nothing runs.
    await panel.locator('#whatif-cores').evaluate((field) => {
      (field as unknown as { value: string }).value = 'abc';
      field.dispatchEvent(new Event('change'));
    });
    await panel.locator('#whatif-run').click();
    await panel.locator('#whatif-progress-text').filter({ hasText: 'Cores per node: "abc" is not a whole number ≥ 1 (empty: as traced).' }).waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('#whatif-cancel').getAttribute('disabled'), '', 'no prediction started');
    assert.deepEqual(cspViolations, [], 'no content-security-policy violations in the panel');
  });
});
