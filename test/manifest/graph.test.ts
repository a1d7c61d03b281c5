import { describe, expect, it } from 'vitest';
import { dependencyLevels, findCycle } from '../../src/manifest/graph.js';

const s = (id: string, ...depends_on: string[]) => ({ id, depends_on });

describe('dependencyLevels', () => {
  it('puts independent steps in one level, keeping the manifest order', () => {
    expect(dependencyLevels([s('c'), s('a'), s('b')])).toEqual([['c', 'a', 'b']]);
  });

  it('groups steps that can run in parallel', () => {
    const steps = [
      s('analyze'),
      s('design', 'analyze'),
      s('tests', 'design'),
      s('code', 'design'),
      s('run', 'code', 'tests'),
      s('docs', 'analyze'),
    ];
    expect(dependencyLevels(steps)).toEqual([['analyze'], ['design', 'docs'], ['tests', 'code'], ['run']]);
  });

  it('places a step after its deepest dependency even when listed first', () => {
    expect(dependencyLevels([s('last', 'mid', 'first'), s('mid', 'first'), s('first')])).toEqual([['first'], ['mid'], ['last']]);
  });

  it('ignores self and missing dependencies', () => {
    expect(dependencyLevels([s('a', 'a', 'ghost'), s('b', 'a')])).toEqual([['a'], ['b']]);
  });

  it('handles steps without depends_on and an empty list', () => {
    expect(dependencyLevels([{ id: 'a' }, { id: 'b', depends_on: ['a'] }])).toEqual([['a'], ['b']]);
    expect(dependencyLevels([])).toEqual([]);
  });

  it('throws on a cycle', () => {
    expect(() => dependencyLevels([s('a', 'b'), s('b', 'a')])).toThrow(/cycle/);
  });
});

describe('findCycle', () => {
  it('returns null for an acyclic graph, a diamond included', () => {
    expect(findCycle([s('a'), s('b', 'a'), s('c', 'a'), s('d', 'b', 'c')])).toBeNull();
    expect(findCycle([])).toBeNull();
  });

  it('finds a two-step cycle, each id once, each depending on the next', () => {
    expect(findCycle([s('build', 'test'), s('test', 'build')])).toEqual(['build', 'test']);
  });

  it('finds a three-step cycle behind an acyclic prefix', () => {
    const cycle = findCycle([s('setup'), s('a', 'setup', 'c'), s('b', 'a'), s('c', 'b')]);
    expect(cycle).toEqual(['a', 'c', 'b']);
  });

  it('ignores self-dependencies and missing steps', () => {
    expect(findCycle([s('a', 'a'), s('b', 'ghost', 'a')])).toBeNull();
  });
});
