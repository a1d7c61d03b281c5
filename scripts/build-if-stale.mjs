/**
 * `npm start`'s first step: runs `npm run build` only when something the build reads is newer than
 * the last build (or there is none), so a start without changes skips the build; it says what it does
 * before the build, which takes a minute or two on a first start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = 'dist/.build-stamp';
/** What the build reads: the service's and the dashboard's sources and the files that configure them. */
const INPUTS = ['src', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    latest = Math.max(latest, newest(join(path, name)));
  }
  return latest;
}

const built =
  existsSync(STAMP) && existsSync('dist/src/main.js') && existsSync('dist/web/.vite/manifest.json') ? statSync(STAMP).mtimeMs : 0;
const changed = Math.max(...INPUTS.map(newest));
if (built > changed) {
  console.log('The build is current: skipping it (npm run build rebuilds).');
} else {
  console.log(
    built
      ? 'Sources changed since the last build: building the service and the dashboard again (a minute or two)…'
      : 'First start: building the service and the dashboard (a minute or two, once; later starts skip it until sources change)…',
  );
  const result = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
