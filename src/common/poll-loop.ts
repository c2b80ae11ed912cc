/**
 * A background loop for an outbox: one round of work, then a wait of `intervalMs` (for what other
 * processes stored, or what became due) cut short by `wake()` (something was stored here, or the
 * process stops). A round answers whether to go again at once (it took all it had room for). A
 * wake during a round is not lost: the next round starts without waiting. The round handles its
 * own failures; the loop never stops on one.
 */
export class PollLoop {
  private active = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;

  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly intervalMs: number,
  ) {}

  /** Whether the loop runs (started, and not asked to stop). */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    this.active = true;
    this.loop = this.run();
  }

  /** Stops: the round under way ends (rounds check `running`), no other starts. */
  async stop(): Promise<void> {
    this.active = false;
    this.wake();
    await this.loop;
  }

  /** Starts the next round now, or as soon as the one under way ends. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.active) {
      this.woken = false;
      const again = await this.round();
      if (!this.active) break;
      if (again || this.woken) continue;
      await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.intervalMs);
      timer.unref();
      this.wakeUp = done;
    });
  }
}
