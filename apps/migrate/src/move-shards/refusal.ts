/**
 * A request the tool will not carry out (a bad argument, a target that is not ready, rows already
 * there): nothing was changed, and the message says why. `shards:move` exits 2 on it; any other
 * error exits 1 (the target's transaction rolled back, so nothing was changed either).
 */
export class MoveRefusal extends Error {
  /** `usage`: the command line itself is wrong, so the usage is printed after the message. */
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
    this.name = 'MoveRefusal';
  }
}
