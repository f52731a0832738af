/**
 * A user extension: how to store instances of one of your classes.
 *
 * `encode` turns an instance into any value Stowage can store (it is encoded in turn);
 * `decode` receives that value back and rebuilds the instance.
 *
 * @example
 * const money: Extension<Money, [number, string]> = {
 *   type: 1, class: Money,
 *   encode: (m) => [m.cents, m.currency],
 *   decode: ([cents, currency]) => new Money(cents, currency),
 * }
 */
export interface Extension<T = any, D = any> {
  /** The MessagePack extension type, 0..63. Must be unique among your extensions and never change once data is stored. */
  readonly type: number
  /** The class whose instances (and subclass instances) this extension stores. */
  readonly class: abstract new (...args: any[]) => T
  /** Turns an instance into a storable value. */
  readonly encode: (value: T) => D
  /** Rebuilds an instance from the value `encode` returned. */
  readonly decode: (data: D) => T
}
