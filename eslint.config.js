import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'coverage/', 'bench/results/', 'src/generated/', 'web/src/gql/'] },
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
    // Scripts, tests, benchmarks and tool configuration are not the service: they may read the environment.
    files: ['scripts/**', 'test/**', 'bench/**', 'prisma.config.ts', 'vitest.config.ts', 'codegen.ts', 'src/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
