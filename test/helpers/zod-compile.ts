// Every test file runs zod's schemas as the service does (src/app.ts): compiled, whatever the file imports first.
import 'zod/compile';
