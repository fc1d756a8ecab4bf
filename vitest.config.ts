import { configDefaults, defineConfig } from 'vitest/config';

// Two projects. `unit` runs the *.unit.test.ts files: pure, no service, no global setup
// (`npm run test:unit`, seconds: they share worker threads and their module cache, which
// pure files can). `services` runs the rest after the global setup checks
// Postgres and Redis once and creates the run's own database; those files isolate
// themselves in it (own schema, own queue prefix), so they run in parallel.
// `vitest run` runs both. The JSON report feeds the closing line of .ci/run ("N passed, M failed").
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.unit.test.ts'], pool: 'threads', isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/**/*.unit.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
