// Our curves against COZ's own viewer code, run on the same files: Debian's coz-profiler
// 0.2.2 ships the viewer as plain JavaScript (/usr/share/coz-profiler/viewer/js/profile.js),
// so its Profile class is evaluated here and fed the seven upstream profiles.
//
// Two deliberate differences are taken out before comparing: the 0.2.2 viewer predates
// HEAD's 5-visit bucket floor (our code runs with minVisits 0 here; the extension uses 5),
// and it pools experiments whose duration is a size_t underflow (>= 2^63 ns) into their
// bucket, which then plots nothing; we drop such experiments, so the viewer gets the text
// without them.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as vm from 'node:vm';
import { DEFAULT_CURVE_OPTIONS, computeCurves } from '../../server/src/causal/curves';
import { parseProfileText } from '../../server/src/import';

const VIEWER = '/usr/share/coz-profiler/viewer/js/profile.js';
const UPSTREAM = path.join(__dirname, '../../../test/fixtures/coz-upstream');

interface ViewerMeasurement {
  speedup: number;
  progress_speedup: number;
}
interface ViewerResult {
  name: string;
  progress_points: { name: string; measurements: ViewerMeasurement[] }[];
}
interface ViewerApi {
  Profile: new (text: string, c: null, l: null, minPoints: () => number, warn: () => void) => {
    getSpeedupData(minPoints: number): ViewerResult[];
  };
  max_normalized_area(result: ViewerResult): number;
}

function loadViewer(): ViewerApi {
  const context = vm.createContext({});
  vm.runInContext(
    fs.readFileSync(VIEWER, 'utf8') + '\n;this.Profile = Profile; this.max_normalized_area = max_normalized_area;',
    context,
  );
  return context as unknown as ViewerApi;
}

const UNDERFLOW = 2n ** 63n;

/** The profile text without underflowed experiments and the point records that follow them. */
function withoutUnderflows(text: string): { text: string; dropped: number } {
  let dropping = false;
  let dropped = 0;
  const kept = text.split('\n').filter((line) => {
    if (line.startsWith('experiment\t')) {
      const duration = /\tduration=(\d+)/.exec(line)?.[1];
      dropping = duration !== undefined && BigInt(duration) >= UNDERFLOW;
      if (dropping) dropped++;
      return !dropping;
    }
    if (line.startsWith('startup') || line.startsWith('runtime') || line.startsWith('samples')) dropping = false;
    return !dropping;
  });
  return { text: kept.join('\n'), dropped };
}

const profiles = fs.readdirSync(UPSTREAM).filter((f) => f.endsWith('.coz'));

test('the seven upstream profiles are all present', () => {
  assert.equal(profiles.length, 7);
});

for (const name of profiles) {
  for (const minPoints of [10, 1]) {
    test(`${name}, min points ${minPoints}: same curves and impact as COZ 0.2.2's viewer`, () => {
      assert.ok(fs.existsSync(VIEWER), `${VIEWER} is missing: scripts/setup-tools.sh installs coz-profiler`);
      const viewer = loadViewer();
      const text = fs.readFileSync(path.join(UPSTREAM, name), 'utf8');
      const cleaned = withoutUnderflows(text);
      const expected = new viewer.Profile(cleaned.text, null, null, () => minPoints, () => undefined).getSpeedupData(minPoints);

      const profile = parseProfileText(text, name);
      assert.equal(profile.skipped.durationUnderflow, cleaned.dropped);
      const ours = computeCurves(profile, { ...DEFAULT_CURVE_OPTIONS, minPoints, minVisits: 0, resamples: 0 }).filter(
        (c) => c.status.kind === 'curve',
      );
      const expectedSeries = expected.flatMap((r) =>
        r.progress_points.filter((p) => p.measurements.length > 0).map((p) => ({ line: r.name, point: p.name, measurements: p.measurements })),
      );
      if (minPoints === 1) assert.ok(expectedSeries.length > 0, 'with min points 1 the viewer draws at least one plot');
      assert.equal(ours.length, expectedSeries.length, 'same number of (line, progress point) curves');
      for (const series of expectedSeries) {
        const curve = ours.find((c) => c.selected === series.line && c.progressPoint === series.point);
        assert.ok(curve, `missing curve ${series.line} / ${series.point}`);
        assert.deepEqual(
          curve.points.map((p) => p.lineSpeedup),
          Array.from(series.measurements, (m) => m.speedup),
        );
        curve.points.forEach((p, i) => assert.ok(Math.abs(p.programSpeedup - series.measurements[i].progress_speedup) < 1e-9));
      }
      for (const result of expected) {
        const lineImpact = Math.max(0, ...ours.filter((c) => c.selected === result.name).map((c) => c.impact));
        assert.ok(Math.abs(lineImpact - viewer.max_normalized_area(result)) < 1e-9, `impact of ${result.name}`);
      }
    });
  }
}
