import { defineConfig } from 'vitest/config';

// The global setup checks Postgres and Redis once and creates the run's own database.
// Test files isolate themselves in it (own schema, own queue prefix), so they run in parallel.
// The JSON report feeds the closing line of .ci/run ("N passed, M failed").
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
