declare module 'virtual:manifest-schema-check' {
  import type { SchemaCheck } from '../../../src/manifest/check';
  const check: SchemaCheck;
  export default check;
}
