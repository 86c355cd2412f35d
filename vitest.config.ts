import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    // A plan whose optimizer rules do not reach a fixpoint fails instead of using the last plan.
    env: { WEIR_REQUIRE_OPTIMIZER_FIXPOINT: '1' },
  },
});
