/**
 * Reading the environment's variables for src/config.ts: each reading checks its variable and notes
 * what is wrong with it, so that every problem is reported together.
 */
export type Env = Record<string, string | undefined>;

export class EnvReader {
  /** What is wrong with the variables read so far, in the order they were read. */
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  /** The variable's value trimmed; undefined when unset or blank. */
  str(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v ? v : undefined;
  }

  /** An integer from min to max; the fallback when unset, or (with a problem) when out of range. */
  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.str(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return n;
  }

  /** A URL with one of the protocols (each with its colon), as written. */
  url(name: string, protocols: string[]): string | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(' or ')} (got '${parsed.protocol}')`);
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
    return raw;
  }

  /** A comma-separated list of `scheme://host[:port]` origins, or `*`. */
  origins(name: string): string[] {
    const list = (this.str(name) ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    for (const o of list) {
      if (o === '*') continue;
      let origin: string | null = null;
      try {
        origin = /^https?:\/\/[^/?#]+$/i.test(o) ? new URL(o).origin : null;
      } catch {
        // reported below
      }
      if (origin === null || origin === 'null')
        this.problems.push(`${name} must list origins as scheme://host[:port], or *, separated by commas (got '${o}')`);
    }
    return list;
  }
}
