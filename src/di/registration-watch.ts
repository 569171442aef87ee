import { Container, type Token } from 'typedi';

/** One registration of TypeDI 0.10's ContainerInstance, as far as it is read here. */
interface Registration {
  id: unknown;
  value: unknown;
  transient?: boolean;
  multiple?: boolean;
}

/**
 * Tells, in a few property reads, whether tokens of TypeDI's global container still hold what they held when the
 * watch was taken. `resolveAccountService()` runs on every authenticated request, and asking the container itself
 * (`has` then `get`) costs three scans of its registrations per token: six tokens, 4.4k of a guarded host route's 250k
 * instructions on Node 20 (`npm run bench:instructions`).
 *
 * It reads TypeDI's `services` array, which its typings keep private (0.10 is its last release): `set` of a
 * registered token assigns the new value into its entry, a new token is pushed, `remove` and
 * `reset({ strategy: 'resetServices' })` replace the array, and the default `reset()` empties the values a class or
 * factory made. So the same array, the same length and the same value in each watched entry mean nothing watched
 * changed.
 * Where that shape is not there (another container, another TypeDI), or a token makes a new value on each `get`
 * (transient), there is no watch, and the caller asks the container as before.
 */
export class RegistrationWatch {
  private constructor(
    private readonly services: Registration[],
    private readonly length: number,
    private readonly entries: (Registration | undefined)[],
    private readonly values: unknown[],
  ) {}

  /** A watch of `tokens` as `container` holds them now, or null when this cannot watch it. */
  static of(container: unknown, tokens: Token<unknown>[]): RegistrationWatch | null {
    if (container !== Container) return null;
    const services = registrationsOfGlobalContainer();
    if (!Array.isArray(services)) return null;
    const entries = tokens.map((token) => services.find((entry) => entry?.id === token));
    if (entries.some((entry) => entry !== undefined && (entry.transient || entry.multiple))) return null;
    return new RegistrationWatch(
      services,
      services.length,
      entries,
      entries.map((entry) => entry?.value),
    );
  }

  /** Whether no watched token was set, replaced or removed since the watch was taken. */
  unchanged(): boolean {
    const services = registrationsOfGlobalContainer();
    if (services !== this.services || services.length !== this.length) return false;
    for (let index = 0; index < this.entries.length; index++) {
      const entry = this.entries[index];
      if (entry !== undefined && entry.value !== this.values[index]) return false;
    }
    return true;
  }
}

function registrationsOfGlobalContainer(): Registration[] | undefined {
  return (Container.of() as unknown as { services?: Registration[] }).services;
}
