// A virtual speedup of one source line: the sequence of real `coz run`s that measures it, and
// after each run, what to run next.
//
// COZ 0.2.2 takes one `--fixed-speedup N` (an integer percent, 0-100) per run, so a schedule of
// speedups is a sequence of program runs, all appending to one profile (COZ opens it with
// ios::app). Speedup 0 is always in the schedule: without baseline experiments no program
// speedup can be computed (../shared/reference/coz.md §1.4, quirk 5).
//
// `--fixed-line FILE:LINE` is matched by libcoz 0.2.2 (`memory_map::find_line`) by splitting at
// the FIRST ':' and comparing FILE as a raw string suffix of each canonical (absolute) source
// path; the first file whose line table has LINE wins. So a path with ':' cannot be given, and
// the suffix passed here always starts at a '/' so that `prog.c` cannot match `myprog.c`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Experiment, Profile } from '../model/profile';

/** A source line to speed up: an absolute path and a 1-based line. */
export interface LineTarget {
  file: string;
  line: number;
}

/** The program to profile, like a launch configuration. `env` is added to the inherited one. */
export interface RunConfig {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface ScheduleOptions {
  /** Line speedups in integer percent (COZ's --fixed-speedup); 0 is added when missing. */
  speedupsPercent?: readonly number[];
  /** Experiments wanted on the line at every speedup. */
  experimentsPerSpeedup?: number;
  /** No run starts once this much time has gone by since the first one. */
  timeBudgetMs?: number;
  /** The workspace folder: a target inside it is named by its path from there. */
  workspaceRoot?: string;
  /** Source files of the program's line table (see readLineTable): allows the shortest unique suffix. */
  knownSourceFiles?: readonly string[];
  /** The COZ launcher, default `coz` (found on the PATH). */
  cozCommand?: string;
  /** Overrides the default profile path. */
  profilePath?: string;
}

/** Eleven speedups: a finished schedule passes COZ's default of 10 points per curve. */
export const DEFAULT_SPEEDUPS_PERCENT: readonly number[] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
export const DEFAULT_EXPERIMENTS_PER_SPEEDUP = 5;
export const DEFAULT_TIME_BUDGET_MS = 120_000;
/** Folder (under the run's cwd) of virtual-speedup profiles; not a dot folder, so `**\/*.coz` sees it. */
export const PROFILE_FOLDER = 'causal-lens-virtual';

/** One program run under COZ. Has the shape of the client's ProcessRun. */
export interface PlannedRun {
  speedupPercent: number;
  /** argv[0] is the COZ launcher; never joined into a shell string. */
  argv: string[];
  cwd: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
}

export interface VirtualSpeedupPlan {
  target: LineTarget;
  /** The `--fixed-line` argument. */
  fixedLine: string;
  /** `target` as the user reads it, e.g. `src/prog.c:30`. */
  label: string;
  profilePath: string;
  /** Ascending, 0 first, no duplicates. */
  speedupsPercent: number[];
  experimentsPerSpeedup: number;
  timeBudgetMs: number;
  /** One run per speedup, in schedule order. */
  runs: PlannedRun[];
}

export type PlanResult = { ok: true; plan: VirtualSpeedupPlan } | { ok: false; message: string };

/** `<cwd>/causal-lens-virtual/<basename>-<line>.coz`. */
export function defaultProfilePath(target: LineTarget, cwd: string): string {
  return path.join(cwd, PROFILE_FOLDER, `${path.basename(target.file)}-${target.line}.coz`);
}

/** The path of `file` from `root` when it is inside it. */
function pathInside(file: string, root: string | undefined): string | undefined {
  if (!root) return undefined;
  const relative = path.relative(root, file);
  const inside = relative !== '' && relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative);
  return inside ? components(relative).join('/') : undefined;
}

/** The path from the workspace root when the file is inside it, else the file name. */
function displayPath(file: string, workspaceRoot: string | undefined): string {
  return pathInside(file, workspaceRoot) ?? path.basename(file);
}

/** Path components of an absolute or relative path, without empty ones. */
function components(file: string): string[] {
  return file.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
}

/** Whether libcoz's raw suffix test matches `suffix` against a source path (relative ones are made absolute). */
function cozSuffixMatch(sourcePath: string, suffix: string): boolean {
  const absolute = sourcePath.startsWith('/') ? sourcePath : '/' + sourcePath;
  return absolute.endsWith(suffix);
}

/**
 * The FILE part of `--fixed-line`: the shortest '/'-led suffix of the target path that only one
 * of `knownSourceFiles` ends with; else the path from the workspace root; else the full path.
 */
export function fixedLineFile(
  target: LineTarget,
  options: Pick<ScheduleOptions, 'workspaceRoot' | 'knownSourceFiles'> = {},
): { ok: true; file: string } | { ok: false; message: string } {
  if (target.file.includes(':')) {
    return {
      ok: false,
      message:
        `${target.file}:${target.line}: COZ cannot select a line in a file whose path contains ':' ` +
        `(it splits --fixed-line at the first ':'). Move or rename the file or folder with the ':'.`,
    };
  }
  const parts = components(target.file);
  if (options.knownSourceFiles) {
    for (let k = 1; k <= parts.length; k++) {
      const suffix = '/' + parts.slice(-k).join('/');
      const matches = options.knownSourceFiles.filter((source) => cozSuffixMatch(source, suffix));
      if (matches.length === 0 && k === 1) {
        return {
          ok: false,
          message:
            `${target.file}:${target.line}: the program has no code from ${parts[parts.length - 1]} ` +
            `(its line table lists ${options.knownSourceFiles.length} other source files). ` +
            `Check the program in the run configuration, and build it with -g.`,
        };
      }
      if (matches.length === 1) return { ok: true, file: suffix };
      if (matches.length === 0) break; // the program was built elsewhere: a shorter suffix was ambiguous
    }
  }
  // Inside the workspace: the path from its root; outside: the whole path.
  return { ok: true, file: '/' + (pathInside(target.file, options.workspaceRoot) ?? parts.join('/')) };
}

function checkSpeedups(speedups: readonly number[]): string | undefined {
  for (const speedup of speedups) {
    if (!Number.isInteger(speedup) || speedup < 0 || speedup > 100) {
      return `speedup ${speedup} is not a whole percent from 0 to 100 (COZ's --fixed-speedup takes an integer percent)`;
    }
  }
  return undefined;
}

function planRun(
  cozCommand: string,
  fixedLine: string,
  profilePath: string,
  run: RunConfig,
  speedupPercent: number,
): PlannedRun {
  return {
    speedupPercent,
    argv: [cozCommand, 'run', '--fixed-line', fixedLine, '--fixed-speedup', String(speedupPercent), '-o', profilePath, '---', run.command, ...run.args],
    cwd: run.cwd,
    ...(run.env ? { env: { ...run.env } } : {}),
  };
}

/** The runs of a virtual speedup of `target`, or why it cannot be planned. */
export function planVirtualSpeedup(target: LineTarget, run: RunConfig, options: ScheduleOptions = {}): PlanResult {
  if (!path.isAbsolute(target.file)) return { ok: false, message: `${target.file}: expected an absolute source path` };
  if (!Number.isInteger(target.line) || target.line < 1) {
    return { ok: false, message: `${target.file}:${target.line}: the line must be a whole number from 1` };
  }
  if (run.command.trim() === '') return { ok: false, message: 'the run configuration has no command (the program to profile)' };
  if (!path.isAbsolute(run.cwd)) return { ok: false, message: `the run configuration's cwd ${run.cwd} is not an absolute path` };
  const speedupProblem = checkSpeedups(options.speedupsPercent ?? []);
  if (speedupProblem) return { ok: false, message: speedupProblem };
  const experimentsPerSpeedup = options.experimentsPerSpeedup ?? DEFAULT_EXPERIMENTS_PER_SPEEDUP;
  if (!Number.isInteger(experimentsPerSpeedup) || experimentsPerSpeedup < 1) {
    return { ok: false, message: `experiments per speedup must be a whole number from 1, not ${experimentsPerSpeedup}` };
  }

  const file = fixedLineFile(target, options);
  if (!file.ok) return file;
  const fixedLine = `${file.file}:${target.line}`;
  const speedupsPercent = [...new Set([0, ...(options.speedupsPercent ?? DEFAULT_SPEEDUPS_PERCENT)])].sort((a, b) => a - b);
  const profilePath = options.profilePath ?? defaultProfilePath(target, run.cwd);
  const cozCommand = options.cozCommand ?? 'coz';
  const label = `${displayPath(target.file, options.workspaceRoot)}:${target.line}`;
  return {
    ok: true,
    plan: {
      target,
      fixedLine,
      label,
      profilePath,
      speedupsPercent,
      experimentsPerSpeedup,
      timeBudgetMs: options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS,
      runs: speedupsPercent.map((speedup) => planRun(cozCommand, fixedLine, profilePath, run, speedup)),
    },
  };
}

/**
 * Creates the profile's folder (with a .gitignore, so profiles are not committed by accident);
 * with `fresh`, removes an earlier profile of the same line, whose experiments may predate an
 * edit of the code.
 */
export async function prepareProfile(plan: VirtualSpeedupPlan, options: { fresh: boolean }): Promise<void> {
  const folder = path.dirname(plan.profilePath);
  await fs.promises.mkdir(folder, { recursive: true });
  const ignore = path.join(folder, '.gitignore');
  if (path.basename(folder) === PROFILE_FOLDER && !fs.existsSync(ignore)) {
    await fs.promises.writeFile(ignore, '# Causal Lens virtual-speedup profiles\n*\n');
  }
  if (options.fresh) await fs.promises.rm(plan.profilePath, { force: true });
}

/** Whether an experiment of the profile is on the plan's line (by COZ's own suffix test). */
export function isOnTarget(plan: VirtualSpeedupPlan, experiment: Experiment): boolean {
  const target = experiment.target;
  if (target.kind !== 'line' || target.line !== plan.target.line) return false;
  const suffix = plan.fixedLine.slice(0, plan.fixedLine.lastIndexOf(':'));
  return cozSuffixMatch(target.path, suffix);
}

export interface SpeedupCount {
  speedupPercent: number;
  /** Experiments on the line with at least one progress-point record: what a curve can use. */
  experiments: number;
  /** All experiments on the line at this speedup, with or without point records. */
  recorded: number;
}

/** Experiments on the plan's line per scheduled speedup. */
export function countExperiments(plan: VirtualSpeedupPlan, profile: Profile | undefined): SpeedupCount[] {
  const counts = new Map(plan.speedupsPercent.map((speedup) => [speedup, { speedupPercent: speedup, experiments: 0, recorded: 0 }]));
  for (const experiment of profile?.experiments ?? []) {
    if (!isOnTarget(plan, experiment)) continue;
    const count = counts.get(Math.round(experiment.speedup * 100));
    if (!count) continue; // a speedup from another schedule of the same line
    count.recorded++;
    if (experiment.points.length > 0) count.experiments++;
  }
  return [...counts.values()];
}

/** `0%: 3/5 · 25%: 5/5 · …` for progress messages. */
export function describeCounts(plan: VirtualSpeedupPlan, counts: readonly SpeedupCount[]): string {
  return counts.map((count) => `${count.speedupPercent}%: ${count.experiments}/${plan.experimentsPerSpeedup}`).join(' · ');
}

export interface ScheduleState {
  /** Since the first run started. */
  elapsedMs: number;
  /** Runs finished so far in this schedule. */
  runsCompleted: number;
  /** Speedup of the last run, for the round-robin. */
  previousPercent?: number;
}

export type NextStep =
  | { kind: 'run'; run: PlannedRun; counts: SpeedupCount[]; message: string }
  | { kind: 'done'; reason: 'enough' | 'time-budget' | 'no-experiments'; counts: SpeedupCount[]; message: string };

/**
 * What to do after reading the profile: run the next speedup that is still short of experiments
 * (round-robin after `previousPercent`), or stop: every speedup has enough; the time budget is
 * used up; or a run at every speedup left no usable experiment on the line (diagnoseRun says why).
 */
export function nextStep(plan: VirtualSpeedupPlan, profile: Profile | undefined, state: ScheduleState): NextStep {
  const counts = countExperiments(plan, profile);
  const summary = describeCounts(plan, counts);
  const short = counts.filter((count) => count.experiments < plan.experimentsPerSpeedup);
  if (short.length === 0) {
    return { kind: 'done', reason: 'enough', counts, message: `${plan.label}: enough experiments at every speedup (${summary})` };
  }
  const total = counts.reduce((sum, count) => sum + count.experiments, 0);
  if (total === 0 && state.runsCompleted >= plan.speedupsPercent.length) {
    return {
      kind: 'done',
      reason: 'no-experiments',
      counts,
      message: `${plan.label}: ${state.runsCompleted} runs left no experiment with a progress-point visit on this line; stopped`,
    };
  }
  if (state.elapsedMs >= plan.timeBudgetMs) {
    const missing = short.map((count) => `${count.speedupPercent}% has ${count.experiments}`).join(', ');
    return {
      kind: 'done',
      reason: 'time-budget',
      counts,
      message:
        `${plan.label}: the ${Math.round(plan.timeBudgetMs / 1000)} s budget is used up after ${state.runsCompleted} runs; ` +
        `short of ${plan.experimentsPerSpeedup} experiments: ${missing}`,
    };
  }
  const previous = state.previousPercent;
  const next = (previous === undefined ? undefined : short.find((count) => count.speedupPercent > previous)) ?? short[0];
  const run = plan.runs.find((candidate) => candidate.speedupPercent === next.speedupPercent)!;
  return { kind: 'run', run, counts, message: `${plan.label}: run at ${next.speedupPercent}% (${summary})` };
}
