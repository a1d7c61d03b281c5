import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { manifestSchemaCheckModule } from '../src/manifest/standalone';

const SCHEMA_CHECK = 'virtual:manifest-schema-check';

/**
 * The manifest's schema check for the browser: ajv's standalone code, generated from the service's
 * schema when the dashboard is built (the page's CSP forbids the eval ajv compiles with).
 */
function manifestSchemaCheck(): Plugin {
  return {
    name: 'manifest-schema-check',
    resolveId: (id) => (id === SCHEMA_CHECK ? `\0${SCHEMA_CHECK}` : null),
    load: (id) => (id === `\0${SCHEMA_CHECK}` ? manifestSchemaCheckModule() : null),
  };
}

/**
 * The dashboard's build: web/ in, dist/web out (served by the service at /). Hashed files land in
 * assets/ so the service can give them long-lived immutable cache headers; the manifest tells the
 * service the build is there.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), manifestSchemaCheck()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npx vite web` for working on the pages: API calls go to a service on the default port.
    proxy: {
      '/graphql': 'http://127.0.0.1:4000',
      '/sign-in': 'http://127.0.0.1:4000',
      '/sign-out': 'http://127.0.0.1:4000',
      '/v1': 'http://127.0.0.1:4000',
    },
  },
});
