import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Layering (docs/decisions.md, "Layering"): a service never imports a face. The faces are how the
 * outside reaches the service: these folders of src/, and the files below that sit elsewhere.
 */
const FACE_FOLDERS = ['edge', 'graphql', 'rest', 'mcp', 'http'];
/** Face files outside the face folders, relative to src/. */
const FACE_FILES = [
  /^(app|main)\.ts$/, // the composition root: builds the faces and wires them to the services
  /^[^/]+\/graphql\.ts$/, // a resource's GraphQL types and fields
  /^[^/]+\/http\.ts$/, // HTTP handlers of a resource (limits/http.ts, metrics/http.ts)
  /^billing\/webhook\.ts$/, // Stripe's webhook endpoint
  /^dashboard\/static\.ts$/, // serves the built dashboard
  /^oauth\/(authorization-server|interaction|sign-in|sign-in-pages|email-sign-in|github-sign-in|pages|cookies|browser-errors|device-flow|provider-configuration)\.ts$/, // browser sign-in and the OAuth server's pages
];

const SRC = fileURLToPath(new URL('src/', import.meta.url));

function srcFiles(dir = '') {
  return readdirSync(posix.join(SRC, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : srcFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const isFace = (path) => FACE_FOLDERS.includes(path.split('/')[0]) || FACE_FILES.some((re) => re.test(path));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** How a file in `from` (a folder of src/) writes an import of `to` (relative to src/). */
const specifier = (from, to) => {
  const rel = posix.relative(from, to);
  return rel.startsWith('.') ? rel : `./${rel}`;
};

const files = srcFiles();
const faceFiles = files.filter(isFace);
const serviceFolders = [...new Set(files.filter((f) => !isFace(f)).map((f) => posix.dirname(f)))];

/** One block per folder of src/: relative import paths depend on where the importing file sits. */
const layering = serviceFolders.map((folder) => ({
  files: [posix.join('src', folder, '*.ts')],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...FACE_FOLDERS.map((face) => ({
            regex: `^${escape(specifier(folder, face))}/`,
            message: `src/${face}/ is a face: a service may not import it. Move what both need into the service (docs/decisions.md, "Layering").`,
          })),
          ...faceFiles
            .filter((face) => !FACE_FOLDERS.includes(face.split('/')[0]))
            .map((face) => ({
              regex: `^${escape(specifier(folder, face).replace(/\.ts$/, ''))}(\\.js|\\.ts)?$`,
              message: `src/${face} is a face: a service may not import it. Move what both need into the service (docs/decisions.md, "Layering").`,
            })),
        ],
      },
    ],
  },
}));

/**
 * Only services reach the database (docs/decisions.md, "Layering"): a face never imports the
 * database module (src/db/) or Prisma. The faces here are the face folders, the OAuth server and
 * the dashboard, and the face files elsewhere; the composition root (app.ts, main.ts) opens the
 * database and hands it to the services, so it is not one of them.
 */
const DB_FREE = [
  ...[...FACE_FOLDERS, 'oauth', 'dashboard'].map((folder) => `src/${folder}/**/*.ts`),
  ...faceFiles.filter((face) => !/^(app|main)\.ts$/.test(face)).map((face) => `src/${face}`),
];
const DATABASE_MESSAGE = 'A face does not reach the database: call a service, which owns the queries (docs/decisions.md, "Layering").';
/** A separate rule id from the service/face layering above, so a file can be held to both. */
const databaseBehindServices = {
  files: DB_FREE,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: '^(\\.\\.?/)+db(/|$)', message: `src/db/ is the database module. ${DATABASE_MESSAGE}` },
          {
            regex: '^(@prisma/|prisma$|pglite-prisma-adapter$|@electric-sql/pglite|pg$)',
            message: `Prisma and the drivers are the database. ${DATABASE_MESSAGE}`,
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'cli/dist/',
      'node_modules/',
      'agent-clients/',
      '.data/',
      'coverage/',
      'bench/results/',
      'src/generated/',
      'web/src/gql/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        AbortController: 'readonly',
        structuredClone: 'readonly',
        document: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' }],
    },
  },
  {
    // Scripts, tests, benchmarks, the command-line tool and tool configuration are not the service: they may read the environment.
    files: ['scripts/**', 'cli/**', 'test/**', 'bench/**', 'prisma.config.ts', 'vitest.config.ts', 'codegen.ts', 'src/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  ...layering,
  {
    // Faces may import faces; the folder blocks above match them too.
    files: faceFiles.map((face) => `src/${face}`),
    rules: { 'no-restricted-imports': 'off' },
  },
  databaseBehindServices,
);
