import { defineConfig } from 'vitest/config';

// Test files isolate themselves (own schema, own queue prefix), so they run in parallel.
// The JSON report feeds the closing line of .ci/run ("N passed, M failed").
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
