// One lint configuration for src/, test/ and scripts/: typescript-eslint's recommended rules with type information,
// and nothing that decides formatting (Prettier does that; `npm run format` writes it, `npm run lint` checks it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['build/**', '.build-tmp-*/**', 'node_modules/**', 'test-artifacts/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Unused arguments kept for a signature's sake start with an underscore.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // A promise nobody awaits loses its error: every one is awaited, returned, or marked `void` on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // Migrations are written against `Kysely<any>`, Kysely's own idiom: a released migration must never depend on the
    // application's schema types, which later releases change.
    files: ['src/stores/sql/migrate.ts', 'src/stores/sql/migrations/**', 'test/stores/*migration*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The peer bench is plain JavaScript for Node, outside the TypeScript project (its own package and lockfile):
    // the Node globals it uses, which the TypeScript files get from @types/node.
    files: ['scripts/bench-peers/**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly' },
    },
  },
  {
    // chai's property assertions (`expect(x).to.be.true`) are expressions by design.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
