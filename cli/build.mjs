// Bundles the command-line tool into one file, dist/wfctl.js, with everything it runs: its own code,
// the service's manifest validator (src/manifest, the very module the service runs) and the
// libraries (commander, openid-client, yaml, ajv, diff). The packed package needs no other file.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

await build({
  entryPoints: [here('./src/main.ts')],
  outfile: here('./dist/wfctl.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  banner: {
    // A bundle of CommonJS libraries (ajv) inside an ES module needs require.
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
