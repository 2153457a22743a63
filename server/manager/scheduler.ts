/**
 * The scheduler's three passes (CONTRACT §5.5, §15): `schedule` places pending sessions, `prepare` starts
 * scheduled ones, `scale_services` reconciles model services. The modules implementing a pass register it
 * here; a trigger (the admin route, an agent joining, a timer) runs the registered passes, and
 * `GET /manager/scheduler/status` reports each pass's last run.
 *
 * One instance per App, kept beside it rather than on it so the App's shape stays as it is.
 */
import type { App } from '../app';
import { timePass } from '../metrics/passes';

export const SCHEDULER_EVENTS = ['schedule', 'prepare', 'scale_services'] as const;
export type SchedulerEvent = (typeof SCHEDULER_EVENTS)[number];

/** One pass; `trigger` says what asked for it (an event name, `include-agents`, …). */
export type SchedulerPass = (trigger: string) => Promise<void>;

export interface PassReport {
  trigger_event: string;
  execution_time: string;
  /** Absent while the run is in progress, and when it failed. */
  finish_time?: string;
}

export class Scheduler {
  private readonly passes = new Map<SchedulerEvent, SchedulerPass[]>();
  private readonly reports = new Map<SchedulerEvent, PassReport>();
  private readonly running = new Set<SchedulerEvent>();
  /** A trigger that arrived during a run: the run is repeated once afterwards, whatever the number of triggers. */
  private readonly pending = new Map<SchedulerEvent, string>();

  constructor(private readonly app: App) {}

  register(event: SchedulerEvent, pass: SchedulerPass): void {
    this.passes.set(event, [...(this.passes.get(event) ?? []), pass]);
  }

  /** Runs the event's passes now, or right after the run in progress. Failures are logged, never thrown. */
  trigger(event: SchedulerEvent, trigger: string): void {
    if (this.running.has(event)) {
      this.pending.set(event, trigger);
      return;
    }
    this.running.add(event);
    void this.run(event, trigger).finally(() => {
      this.running.delete(event);
      const next = this.pending.get(event);
      if (next !== undefined) {
        this.pending.delete(event);
        this.trigger(event, next);
      }
    });
  }

  /** The last run of each pass; `{}` for a pass that has not run since the manager started. */
  status(): Record<SchedulerEvent, PassReport | Record<string, never>> {
    const out = {} as Record<SchedulerEvent, PassReport | Record<string, never>>;
    for (const event of SCHEDULER_EVENTS) {
      const report = this.reports.get(event);
      out[event] = report ? { ...report } : {};
    }
    return out;
  }

  private async run(event: SchedulerEvent, trigger: string): Promise<void> {
    try {
      await this.observe(event, trigger, async () => {
        for (const pass of this.passes.get(event) ?? []) await pass(trigger);
      });
    } catch (err) {
      this.app.log.error({ err, event, trigger }, 'scheduler pass failed');
    }
  }

  /**
   * Runs `work` as a run of `event` and reports it in the status: for passes a loop of their own starts (the
   * session scheduler on enqueue, termination and its timer), so the status shows every run, not only operators'.
   */
  async observe<T>(event: SchedulerEvent, trigger: string, work: () => Promise<T>): Promise<T> {
    const report: PassReport = { trigger_event: trigger, execution_time: new Date().toISOString() };
    this.reports.set(event, report);
    const result = await timePass(this.app, event, work);
    report.finish_time = new Date().toISOString();
    return result;
  }
}

const schedulers = new WeakMap<App, Scheduler>();

export function schedulerOf(app: App): Scheduler {
  let scheduler = schedulers.get(app);
  if (!scheduler) schedulers.set(app, (scheduler = new Scheduler(app)));
  return scheduler;
}

/** `POST /manager/scheduler/trigger`: an operator asks for a pass; the report names the event as its trigger. */
export function triggerPass(app: App, event: SchedulerEvent): Record<string, never> {
  schedulerOf(app).trigger(event, event);
  return {};
}
