// Type-aware lint: the promise rules catch the floating promise that would leak a lease.
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// Gateway layers, lowest first (docs/architecture.md describes each). A folder of src/ may import
// its own folder and any folder of a lower layer; importing a higher layer, or the other folder
// of its own layer, fails lint.
//
//   util ← errors ← observability ← upstream | engine | tokenizer | parsers ← workers
//        ← admission | policies | discovery
//        ← routing ← grpc ← pd ← config ← server ← cluster ← cli | compat
//
// Outside the layers: packages/kit imports nothing from the repository; packages/protos only its
// gRPC libraries; packages/sim imports only @switchyard/kit, @switchyard/protos, its engine
// libraries (gRPC, tokenizer, zip) and node built-ins; in the gateway only src/cli/** imports @switchyard/sim; only
// tests import @switchyard/sim/testing.
const LAYERS = [
  ['util'],
  ['errors'],
  ['observability'],
  ['upstream', 'engine', 'tokenizer', 'parsers'],
  ['workers'],
  ['admission', 'policies', 'discovery'],
  ['routing'],
  ['grpc'],
  ['pd'],
  ['config'],
  ['dashboard'],
  ['server'],
  ['cluster'],
  ['cli', 'compat'],
];

// Temporary exceptions, one imported file each, for imports that work in flight removes. Delete
// the entry when its move lands. None are open.
const TEMPORARY_ALLOWED = {};

const SIM_TESTING = {
  regex: '^@switchyard/sim/testing$',
  message: '@switchyard/sim/testing is for tests only.',
};

/** The no-restricted-imports patterns for one folder of src/. */
function layerPatterns(folder) {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  const above = LAYERS.slice(rank)
    .flat()
    .filter((f) => f !== folder);
  const patterns = above.flatMap((target) => {
    const allowed =
      TEMPORARY_ALLOWED[folder]?.[target] ?? (target === 'config' ? 'schema.js' : undefined);
    const except = allowed === undefined ? '' : `(?!${allowed.replaceAll('.', '\\.')}$)`;
    const pattern = {
      regex: `^(\\.\\./)+${target}/${except}`,
      message: `src/${folder} must not import src/${target}, a higher layer or a sibling (see eslint.config.js).`,
    };
    // Each feature's xFromConfig beside its class reads its flags from the config's type; a type
    // import is erased at runtime, so it adds no dependency on the config layer's code.
    if (target !== 'config') return [pattern];
    return [
      pattern,
      {
        regex: '^(\\.\\./)+config/schema\\.js$',
        allowTypeImports: true,
        message: `src/${folder} may import only the type of the config (import type).`,
      },
    ];
  });
  patterns.push({
    regex: '^(\\.\\./)+(packages|test|bench|scripts)/',
    message: 'The gateway imports the workspace packages by name, never by path.',
  });
  patterns.push(
    folder === 'cli'
      ? SIM_TESTING
      : { regex: '^@switchyard/sim(/|$)', message: 'Only src/cli imports the simulator.' },
  );
  return patterns;
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'packages/*/dist/**',
      'node_modules/**',
      'bin/**',
      'scripts/**',
      '.tmp/**',
      'coverage/**',
      'eslint.config.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    // Import cycles, file by file, over the gateway and both packages. Sources import each other
    // by their emitted `.js` names, so the resolver maps `.js` back to the `.ts` beside it.
    // Type-only imports are erased at runtime and the rule ignores them.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.js', '.json', '.node'],
          extensionAlias: { '.js': ['.ts', '.js'] },
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': 'error',
    },
  },
  {
    // A source file over 300 lines of code usually holds more than one idea; a warning, so a
    // long file is a prompt to split it, not a failed build.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    rules: {
      'max-lines': ['warn', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  ...LAYERS.flat().map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: layerPatterns(folder) }],
    },
  })),
  {
    // The sources are flat, so `../` would leave the package.
    files: ['packages/kit/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!node:|\\./)', message: 'packages/kit imports only node built-ins.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/protos/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|@grpc/(grpc-js|proto-loader)$|\\./)',
              message: 'packages/protos imports only the gRPC libraries and node built-ins.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/sim/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(?!node:|@switchyard/(kit|protos)$|@grpc/grpc-js$|@huggingface/tokenizers$|fflate$|\\./)',
              message:
                'The simulator imports only @switchyard/kit, @switchyard/protos, its engine libraries and node built-ins.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bench/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SIM_TESTING] }] },
  },
  {
    // The dashboard page: plain browser modules served as they are, outside every tsconfig, so
    // linted without type information; no-undef (with the browser globals it uses) catches the
    // typo a compiler would have.
    files: ['src/dashboard/page/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'getComputedStyle',
          'EventSource',
          'ResizeObserver',
          'setTimeout',
          'setInterval',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-undef': 'error' },
  },
);
