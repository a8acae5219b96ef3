import type { Logger } from 'pino';

/** Longest wait between attempts while a chain's RPC endpoint fails (ms). */
const MAX_BACKOFF_MS = 60_000;

/**
 * The loop every chain watcher runs: a step now, then one every `intervalMs` (at once while the step
 * says it is behind); after a failure, exponential back-off up to a minute, logged the first time and
 * every tenth, so an endpoint down for an hour does not flood the log.
 */
export class PollLoop {
  consecutiveFailures = 0;
  /** The last step's error, or what `standingProblem` says once steps succeed again. */
  lastError: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly options: {
      /** What the log lines name ("chain watcher", "Solana watcher"). */
      name: string;
      network: string;
      intervalMs: number;
      /** One step; `behind` runs the next one at once. */
      step: () => Promise<'behind' | 'caught_up'>;
      /** A problem that outlives successful steps (an endpoint of the wrong chain). */
      standingProblem: () => string | undefined;
      logger: Logger;
    },
  ) {}

  /** Starts the loop; the first step runs at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop and waits for a step under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async runOnce(): Promise<void> {
    const { name, network, intervalMs, logger } = this.options;
    let delay = intervalMs;
    try {
      const outcome = await this.options.step();
      if (this.consecutiveFailures > 0) logger.info({ network }, `${name} reached its RPC endpoint again`);
      this.consecutiveFailures = 0;
      this.lastError = this.options.standingProblem() ?? null;
      if (outcome === 'behind') delay = 0;
    } catch (error) {
      const failures = ++this.consecutiveFailures;
      this.lastError = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      delay = Math.min(intervalMs * 2 ** Math.min(failures, 16), MAX_BACKOFF_MS);
      if (failures === 1 || failures % 10 === 0) {
        logger.warn(
          { network, failures, retryInMs: delay, err: this.lastError },
          `${name} cannot scan; retrying`,
        );
      }
    }
    this.schedule(delay);
  }
}
