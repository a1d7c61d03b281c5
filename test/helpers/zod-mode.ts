// Every test file runs zod's schemas as the service does (src/runtime/zod-mode.ts): compiled, without
// reference-cycle support, whatever the file imports first.
import '../../src/runtime/zod-mode.js';
