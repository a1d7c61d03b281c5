#!/usr/bin/env node
// Copies screenshots the browser tests wrote (checkPage in test/browser/service.ts writes
// `.test-results/screenshots/<name>-desktop.png` at 1280 px and `<name>-phone.png` at 390 px) into
// docs/dashboard/ as `<name>.png` and `<name>-phone.png`, the names docs/dashboard.md shows.
//
//   node scripts/dashboard-screenshots.mjs install install-picked workflow-edit-json
//
// Run the browser test that makes them first (for these: test/browser/install.test.ts and
// test/browser/first-hour.test.ts), and look at each before committing it.
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, '.test-results', 'screenshots');
const to = join(root, 'docs', 'dashboard');
const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/dashboard-screenshots.mjs <name>… (as passed to checkPage)');
  process.exit(2);
}
let missing = 0;
for (const name of names) {
  for (const [source, target] of [
    [`${name}-desktop.png`, `${name}.png`],
    [`${name}-phone.png`, `${name}-phone.png`],
  ]) {
    if (!existsSync(join(from, source))) {
      console.error(`missing: ${join(from, source)} (run the browser test that takes it)`);
      missing += 1;
      continue;
    }
    copyFileSync(join(from, source), join(to, target));
    console.log(`docs/dashboard/${target}`);
  }
}
process.exit(missing ? 1 : 0);
