// Virtual-speedup sessions: the server plans the COZ runs of one line and, after each run the
// client executed, reads the profile and says what comes next or what went wrong. The client
// only runs the argv it is given (as a VS Code task) and shows progress.

import * as path from 'node:path';
import { detectCoz } from '../experiments/cozInstall';
import { Diagnosis, checkBeforeRun, diagnoseRun, readLineTable, resolveProgram } from '../experiments/diagnose';
import { RunConfig, VirtualSpeedupPlan, nextStep, planVirtualSpeedup, prepareProfile } from '../experiments/runPlan';
import { Profile } from '../model/profile';
import * as ext from '../protocol/lspExt';

interface Session {
  plan: VirtualSpeedupPlan;
  run: RunConfig;
  previousPercent?: number;
  runsInProfile: number;
}

function failed(diagnosis: Diagnosis): { kind: 'failed'; message: string; fix: string } {
  return { kind: 'failed', message: diagnosis.message, fix: diagnosis.fix };
}

export class VirtualSpeedups {
  private readonly sessions = new Map<string, Session>();
  private nextId = 1;

  constructor(
    private readonly workspaceRoot: () => string | undefined,
    /**
     * Loads the profile into the store (lenses and hovers follow the experiments) and returns
     * it; undefined when the run wrote none.
     */
    private readonly loadProfile: (file: string) => Promise<Profile | undefined>,
  ) {}

  async start(params: ext.VirtualSpeedupStartParams, file: string): Promise<ext.VirtualSpeedupStartResult> {
    const run: RunConfig = { command: params.run.command, args: params.run.args, cwd: params.run.cwd, env: params.run.env };
    const label = `${path.basename(file)}:${params.line + 1}`;
    const coz = await detectCoz();
    if (!coz.ok) return { ok: false, message: `${label}: cannot run a virtual speedup: ${coz.problems.join(' ')}`, fix: '' }; // each problem ends with its fix
    const refusal = await checkBeforeRun(label, run);
    if (refusal) return { ok: false, message: refusal.message, fix: refusal.fix };

    const program = resolveProgram(run);
    const table = program ? await readLineTable(program) : undefined;
    const planned = planVirtualSpeedup({ file, line: params.line + 1 }, run, {
      speedupsPercent: params.speedupsPercent,
      experimentsPerSpeedup: params.experimentsPerSpeedup,
      timeBudgetMs: params.timeBudgetSeconds === undefined ? undefined : params.timeBudgetSeconds * 1000,
      workspaceRoot: this.workspaceRoot(),
      knownSourceFiles: table ? [...table.keys()] : undefined,
      cozCommand: coz.cozPath,
    });
    if (!planned.ok) return { ok: false, message: planned.message, fix: '' };
    const plan = planned.plan;
    await prepareProfile(plan, { fresh: true });
    const session = String(this.nextId++);
    this.sessions.set(session, { plan, run, runsInProfile: 0 });
    const first = nextStep(plan, undefined, { elapsedMs: 0, runsCompleted: 0 });
    return { ok: true, session, label: plan.label, profilePath: plan.profilePath, step: this.toStep(this.sessions.get(session)!, first) };
  }

  async next(params: ext.VirtualSpeedupNextParams): Promise<ext.VirtualSpeedupStep> {
    const session = this.sessions.get(params.session);
    if (!session) return { kind: 'failed', message: `virtual-speedup session ${params.session} is unknown (the server restarted?)`, fix: 'Start it again.' };
    const { plan } = session;
    const profile = await this.loadProfile(plan.profilePath);
    const diagnosis = await diagnoseRun(
      { plan, run: session.run, profile, runsBefore: session.runsInProfile },
      { exitCode: params.outcome.exitCode, signal: params.outcome.signal, stderr: params.outcome.stderr, cancelled: params.outcome.cancelled },
    );
    session.runsInProfile = profile?.runs.length ?? 0;
    if (diagnosis) {
      this.sessions.delete(params.session);
      return failed(diagnosis);
    }
    if (params.outcome.cancelled) {
      this.sessions.delete(params.session);
      return { kind: 'done', message: `${plan.label}: cancelled; the experiments so far are kept in ${plan.profilePath}` };
    }
    const step = nextStep(plan, profile, {
      elapsedMs: params.elapsedMs,
      runsCompleted: params.runsCompleted,
      previousPercent: session.previousPercent,
    });
    if (step.kind === 'done') this.sessions.delete(params.session);
    return this.toStep(session, step);
  }

  private toStep(session: Session, step: ReturnType<typeof nextStep>): ext.VirtualSpeedupStep {
    if (step.kind === 'done') return { kind: 'done', message: step.message };
    session.previousPercent = step.run.speedupPercent;
    return { kind: 'run', run: step.run, message: step.message };
  }
}
